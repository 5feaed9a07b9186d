import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import {
  allocateOsworldPorts,
  osworldContainerSpec,
  releaseOsworldPorts,
  detectKvm,
} from "../../../../packages/desktops/src/osworld/provider.ts";

describe("OSWorld docker provider", () => {
  it("builds OSWorld's container: VM image read-only, four published ports, NET_ADMIN, KVM device", () => {
    const spec = osworldContainerSpec({
      vmPath: "/vm/Ubuntu.qcow2",
      ports: { server: 5001, vnc: 8007, chromium: 9223, vlc: 8081 },
      kvm: true,
      runId: "r1",
    });
    expect(spec.Image).toBe("happysixd/osworld-docker");
    expect(spec.HostConfig?.Binds).toEqual(["/vm/Ubuntu.qcow2:/System.qcow2:ro"]);
    expect(spec.HostConfig?.PortBindings).toEqual({
      "5000/tcp": [{ HostPort: "5001" }],
      "8006/tcp": [{ HostPort: "8007" }],
      "9222/tcp": [{ HostPort: "9223" }],
      "8080/tcp": [{ HostPort: "8081" }],
    });
    expect(spec.HostConfig?.CapAdd).toEqual(["NET_ADMIN"]);
    expect(spec.HostConfig?.Devices?.[0].PathOnHost).toBe("/dev/kvm");
    expect(spec.Env).toEqual(expect.arrayContaining(["DISK_SIZE=32G", "RAM_SIZE=4G", "CPU_CORES=4"]));
    expect(spec.Labels).toMatchObject({ "retrace.managed": "true", "retrace.run": "r1", "retrace.role": "osworld" });
  });

  it("falls back to KVM=N without /dev/kvm", () => {
    const spec = osworldContainerSpec({
      vmPath: "vm.qcow2",
      ports: { server: 5000, vnc: 8006, chromium: 9222, vlc: 8080 },
      kvm: false,
      runId: "r",
    });
    expect(spec.Env).toContain("KVM=N");
    expect(spec.HostConfig?.Devices).toEqual([]);
    expect(detectKvm("/nonexistent/kvm")).toBe(false);
  });

  it("hands parallel workers distinct free ports and skips ports in use", async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(5000, "0.0.0.0", () => r())).catch(() => undefined);
    const lockFile = `/tmp/retrace-osworld-ports-test-${process.pid}.lck`;
    const all = await Promise.all(Array.from({ length: 4 }, () => allocateOsworldPorts({ used: [8006], lockFile })));
    const flat = all.flatMap((p) => Object.values(p));
    expect(new Set(flat).size).toBe(16);
    expect(flat).not.toContain(8006);
    if (busy.listening) expect(flat).not.toContain(5000);
    for (const p of all) expect(p.server).toBeGreaterThanOrEqual(5000);
    all.forEach(releaseOsworldPorts);
    busy.close();
  });
});
