/**
 * Security (issue 12): desktop containers run without privileged mode, without the host's network
 * (no network at all), without added capabilities or host mounts. Asserted on the create spec the
 * backend really sends: a recording dockerode stand-in captures it and refuses to create.
 */
import type Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { ContainerBackend, desktopContainerSpec } from "../../../../packages/desktops/src/docker/container-backend.ts";

describe("desktop container create spec", () => {
  it("is unprivileged, has no network and no host mounts, and is what the backend sends", async () => {
    const sent: Docker.ContainerCreateOptions[] = [];
    const docker = {
      createContainer: async (spec: Docker.ContainerCreateOptions) => {
        sent.push(spec);
        throw new Error("no engine in this test");
      },
    } as unknown as Docker;
    const backend = new ContainerBackend({ docker, image: "retrace-desktop:test", runId: "t1" });
    await expect(backend.freshSession({})).rejects.toThrow(/could not start a retrace-desktop:test container/);
    expect(sent).toHaveLength(1);
    const spec = sent[0];
    expect(spec).toEqual(
      desktopContainerSpec({ image: "retrace-desktop:test", width: 1280, height: 800, runId: "t1" }),
    );
    const host = spec.HostConfig ?? {};
    expect(host.Privileged ?? false).toBe(false);
    expect(host.NetworkMode).toBe("none");
    expect(host.NetworkMode).not.toBe("host");
    expect(host.CapAdd ?? []).toEqual([]);
    expect(host.Binds ?? []).toEqual([]);
    expect(host.Mounts ?? []).toEqual([]);
    expect(host.PidMode ?? "").not.toBe("host");
    expect(host.IpcMode ?? "").not.toBe("host");
    expect(host.Devices ?? []).toEqual([]);
    expect(host.SecurityOpt ?? []).not.toContain("seccomp=unconfined");
  });
});
