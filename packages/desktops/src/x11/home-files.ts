/**
 * File access to the host desktop user's home, for a server that runs as root (the OSWorld control
 * server, the desktop's oracles). Every operation runs in a short child process with the desktop
 * user's uid and gid (so the kernel applies that user's rights, and files it writes are its own:
 * no chown), and resolves the path openat-style: the home is opened with `O_NOFOLLOW`, then each
 * component relative to the folder before it with `O_NOFOLLOW` (`dir_fd`), so a symbolic link
 * anywhere in the path is refused, never followed, and there is no window between a check and the
 * use (TOCTOU). Reads open with `O_NONBLOCK` and check the opened file with `fstat`: a FIFO, a
 * device or a socket is refused, not read. The helper is Python in isolated mode (`-I -S`: no
 * current folder, user site or `PYTHON*` variables), so nothing in the home is imported.
 */
import { EnvironmentError } from "@retrace-cua/core/errors";
import { spawn } from "node:child_process";
import { PassThrough, type Readable } from "node:stream";
import { runCommand, type RunAs } from "./processes.ts";

/** Why a home file operation was refused. */
export type HomeFileRefusal =
  "missing" | "link" | "special" | "too-large" | "denied" | "not-dir" | "is-dir" | "invalid";

/** A refused home file operation: `reason` says why, the message is one line naming the path. */
export class HomeFileError extends EnvironmentError {
  constructor(
    readonly reason: HomeFileRefusal,
    message: string,
  ) {
    super(message, { retryable: false });
  }
}

/** A folder listing, as OSWorld's `/list_directory` answers it. */
export interface HomeTree {
  type: "directory" | "file";
  name: string;
  children?: HomeTree[];
}

/** What a path inside the home is (links are "link": never followed). */
export type HomeEntryKind = "file" | "dir" | "link" | "other";

/** The host desktop's safe file access (paths are relative to the home; `..` is refused). */
export interface HomeFiles {
  /** What the path is, or undefined when it (or a folder on the way) does not exist. */
  stat(rel: string): Promise<HomeEntryKind | undefined>;
  /** A regular file's bytes; throws {@link HomeFileError} ("too-large" above `maxBytes`). */
  read(rel: string, maxBytes: number): Promise<Buffer>;
  /**
   * A regular file of any size as a stream: its size, and its bytes as they are read (the same
   * resolution and refusals as {@link read}, checked before this resolves). `signal` ends the read
   * (the reading process is killed); so does destroying `body`.
   */
  stream(rel: string, signal: AbortSignal): Promise<HomeFileStream>;
  /** Write a regular file (parent folders created), owned by the desktop user, with the pristine mtime. */
  write(rel: string, data: Buffer): Promise<void>;
  /** The tree under a folder (links listed as files, never entered), at most `maxDepth` deep. */
  list(rel: string, maxDepth: number): Promise<HomeTree>;
}

/** A home file being read: its size and its bytes. */
export interface HomeFileStream {
  size: number;
  body: Readable;
}

/** Most entries one listing returns (a refusal beyond). */
export const LIST_MAX_ENTRIES = 20_000;
/** How long one file operation may take. */
const FILE_OP_TIMEOUT_MS = 60_000;

const HELPER_PY = String.raw`
import errno, json, os, stat, sys
op, home, rel, arg = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
mtime = int(sys.argv[5])
CODES = {"missing": 10, "link": 11, "special": 12, "too-large": 13, "denied": 14, "not-dir": 15, "is-dir": 16, "invalid": 17}
def fail(reason, msg):
    sys.stderr.write(msg + "\n")
    sys.exit(CODES[reason])
parts = [p for p in rel.split("/") if p not in ("", ".")]
if ".." in parts: fail("invalid", "'..' is not accepted in a path: name the file from the home down")
if any("\0" in p for p in parts): fail("invalid", "a path may not contain NUL")
shown = "~/" + "/".join(parts)
DIRF = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
def classify(name, at, upto, err):
    try:
        st = os.stat(name, dir_fd=at, follow_symlinks=False)
    except FileNotFoundError:
        fail("missing", "~/" + upto + " does not exist")
    if stat.S_ISLNK(st.st_mode): fail("link", "~/" + upto + " is a symbolic link: the host desktop never follows links")
    if stat.S_ISDIR(st.st_mode): fail("denied", "~/" + upto + ": " + os.strerror(err.errno))
    fail("not-dir", "~/" + upto + " is not a folder")
def opendir(name, at, upto, create):
    try:
        return os.open(name, DIRF, dir_fd=at)
    except FileNotFoundError:
        if not create: fail("missing", "~/" + upto + " does not exist")
        os.mkdir(name, 0o755, dir_fd=at)
        fd = os.open(name, DIRF, dir_fd=at)
        os.utime(fd, (mtime, mtime))
        return fd
    except PermissionError as e:
        fail("denied", "~/" + upto + ": permission denied for the desktop user")
    except OSError as e:
        classify(name, at, upto, e)
try:
    fd = os.open(home, DIRF)
except OSError as e:
    fail("denied", "the desktop's home is not a folder it may open: " + os.strerror(e.errno))
def walk(names, create):
    global fd
    for i, p in enumerate(names):
        nfd = opendir(p, fd, "/".join(parts[:i + 1]), create)
        os.close(fd)
        fd = nfd
if op == "stat":
    if not parts:
        print("dir"); sys.exit(0)
    try:
        for p in parts[:-1]:
            nfd = os.open(p, DIRF, dir_fd=fd); os.close(fd); fd = nfd
        st = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        print("missing"); sys.exit(0)
    except OSError as e:
        print("link" if e.errno in (errno.ELOOP, errno.ENOTDIR) else "other"); sys.exit(0)
    m = st.st_mode
    print("file" if stat.S_ISREG(m) else "dir" if stat.S_ISDIR(m) else "link" if stat.S_ISLNK(m) else "other")
elif op == "read" or op == "stream":
    if not parts: fail("is-dir", "~/ is a folder")
    walk(parts[:-1], False)
    try:
        f = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, dir_fd=fd)
    except FileNotFoundError:
        fail("missing", shown + " does not exist")
    except PermissionError:
        fail("denied", shown + ": permission denied for the desktop user")
    except OSError as e:
        if e.errno == errno.ELOOP: fail("link", shown + " is a symbolic link: the host desktop never follows links")
        fail("special", shown + " could not be opened: " + os.strerror(e.errno))
    st = os.fstat(f)
    if stat.S_ISDIR(st.st_mode): fail("is-dir", shown + " is a folder")
    if not stat.S_ISREG(st.st_mode): fail("special", shown + " is not a regular file (a FIFO, device or socket): refused")
    if op == "stream":
        # the size first (one line), then exactly that many bytes: the server sends them as they come
        out = sys.stdout.buffer
        out.write(str(st.st_size).encode() + b"\n")
        out.flush()
        left = st.st_size
        while left > 0:
            b = os.read(f, min(1 << 20, left))
            if not b: break
            left -= len(b)
            out.write(b)
        out.flush()
        sys.exit(0)
    if st.st_size > arg: fail("too-large", shown + " is " + str(st.st_size) + " bytes; the host desktop serves files up to " + str(arg) + " bytes")
    out = sys.stdout.buffer
    left = arg + 1
    while left > 0:
        b = os.read(f, min(1 << 20, left))
        if not b: break
        left -= len(b)
        out.write(b)
    if left <= 0: fail("too-large", shown + " grew beyond " + str(arg) + " bytes while it was read")
elif op == "write":
    if not parts: fail("is-dir", "~/ is a folder")
    walk(parts[:-1], True)
    try:
        f = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, 0o644, dir_fd=fd)
    except PermissionError:
        fail("denied", shown + ": permission denied for the desktop user")
    except OSError as e:
        if e.errno == errno.ELOOP: fail("link", shown + " is a symbolic link: the host desktop never follows links")
        if e.errno == errno.EISDIR: fail("is-dir", shown + " is a folder")
        fail("special", shown + " could not be opened for writing: " + os.strerror(e.errno))
    st = os.fstat(f)
    if not stat.S_ISREG(st.st_mode): fail("special", shown + " is not a regular file (a FIFO, device or socket): refused")
    os.ftruncate(f, 0)
    src = sys.stdin.buffer
    while True:
        b = src.read(1 << 20)
        if not b: break
        while b:
            n = os.write(f, b)
            b = b[n:]
    os.utime(f, (mtime, mtime))
    os.close(f)
    os.utime(fd, (mtime, mtime))
elif op == "list":
    walk(parts, False)
    count = [0]
    def tree(d, depth):
        out = []
        for name in sorted(os.listdir(d)):
            count[0] += 1
            if count[0] > ${LIST_MAX_ENTRIES}: fail("too-large", shown + " holds more than ${LIST_MAX_ENTRIES} entries: list a smaller folder")
            st = os.stat(name, dir_fd=d, follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                node = {"type": "directory", "name": name, "children": []}
                if depth < arg:
                    try:
                        sub = os.open(name, DIRF, dir_fd=d)
                    except OSError:
                        sub = None
                    if sub is not None:
                        node["children"] = tree(sub, depth + 1)
                        os.close(sub)
                out.append(node)
            else:
                out.append({"type": "file", "name": name})
        return out
    print(json.dumps(tree(fd, 1)))
else:
    fail("invalid", "unknown operation " + op)
`;

const REASONS: Record<number, HomeFileRefusal> = {
  10: "missing",
  11: "link",
  12: "special",
  13: "too-large",
  14: "denied",
  15: "not-dir",
  16: "is-dir",
  17: "invalid",
};

/**
 * Home file access for the desktop user `runAs()` (undefined: the current user) whose home is
 * `home()`; written files and created folders get the modification time `mtime`.
 */
export function homeFiles(home: () => string, runAs: () => RunAs | undefined, mtime: Date): HomeFiles {
  const mtimeS = String(Math.floor(mtime.getTime() / 1000));
  const run = async (op: string, rel: string, arg: number, input?: Buffer): Promise<Buffer> => {
    const dir = home();
    if (!dir) throw new EnvironmentError("the desktop has no home yet (no session started)", { retryable: false });
    const r = await runCommand(["/usr/bin/python3", "-I", "-S", "-c", HELPER_PY, op, dir, rel, String(arg), mtimeS], {
      env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
      cwd: "/",
      runAs: runAs(),
      timeoutMs: FILE_OP_TIMEOUT_MS,
      input,
    });
    if (r.code === 0) return r.stdout;
    const reason = REASONS[r.code];
    const line = r.stderr.trim().split("\n").pop() ?? "";
    if (reason) throw new HomeFileError(reason, line);
    throw new EnvironmentError(`home file ${op} of ~/${rel} failed (${r.code}): ${line || "no message"}`, {
      retryable: false,
    });
  };
  const helper = (op: string, rel: string, arg: number): string[] => [
    "/usr/bin/python3",
    "-I",
    "-S",
    "-c",
    HELPER_PY,
    op,
    home(),
    rel,
    String(arg),
    mtimeS,
  ];
  const stream = (rel: string, signal: AbortSignal): Promise<HomeFileStream> =>
    new Promise((resolve, reject) => {
      if (!home())
        return reject(new EnvironmentError("the desktop has no home yet (no session started)", { retryable: false }));
      const who = runAs();
      const argv = helper("stream", rel, 0);
      const child = spawn(argv[0], argv.slice(1), {
        env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
        cwd: "/",
        uid: who?.uid,
        gid: who?.gid,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const body = new PassThrough();
      let stderr = "";
      let head: Buffer | undefined = Buffer.alloc(0);
      let size = -1;
      let sent = 0;
      const kill = () => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      };
      const onAbort = () => {
        kill();
        body.destroy(new EnvironmentError(`reading ~/${rel} passed its deadline`, { retryable: false }));
        reject(new EnvironmentError(`reading ~/${rel} passed its deadline`, { retryable: false }));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      body.once("close", kill); // the client went away or the reply was cut: stop reading
      child.stderr.on("data", (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-4096)));
      child.stdout.on("data", (d: Buffer) => {
        if (head) {
          head = Buffer.concat([head, d]);
          const nl = head.indexOf(10);
          if (nl < 0) return;
          size = Number(head.subarray(0, nl).toString());
          d = head.subarray(nl + 1);
          head = undefined;
          resolve({ size, body });
        }
        sent += d.length;
        if (d.length && !body.write(d)) {
          child.stdout.pause();
          body.once("drain", () => child.stdout.resume());
        }
      });
      child.once("error", (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(new EnvironmentError(`could not read ~/${rel}: ${e.message}`, { cause: e, retryable: false }));
        body.destroy(e);
      });
      child.once("close", (code) => {
        signal.removeEventListener("abort", onAbort);
        if (head === undefined) {
          // started: the bytes must be all of them (a file that shrank while read ends the reply early)
          if (code === 0 && sent === size) body.end();
          else
            body.destroy(
              new EnvironmentError(
                `~/${rel}: ${sent} of ${size} bytes read (${stderr.trim().split("\n").pop() || `exit ${code}`})`,
                { retryable: false },
              ),
            );
          return;
        }
        const reason = code === null ? undefined : REASONS[code];
        const line = stderr.trim().split("\n").pop() ?? "";
        reject(
          reason
            ? new HomeFileError(reason, line)
            : new EnvironmentError(`home file stream of ~/${rel} failed (${code}): ${line || "no message"}`, {
                retryable: false,
              }),
        );
      });
    });
  return {
    stream,
    stat: async (rel) => {
      const kind = (await run("stat", rel, 0)).toString().trim();
      return kind === "missing" ? undefined : (kind as HomeEntryKind);
    },
    read: (rel, maxBytes) => run("read", rel, maxBytes),
    write: async (rel, data) => {
      await run("write", rel, 0, data);
    },
    list: async (rel, maxDepth) => {
      const children = JSON.parse((await run("list", rel, maxDepth)).toString()) as HomeTree[];
      return { type: "directory", name: rel.replace(/\/+$/, "").split("/").pop() ?? "", children };
    },
  };
}
