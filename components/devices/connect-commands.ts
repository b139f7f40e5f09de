import type { ConsoleIdentity } from "../console/context";

/** The SSH gateway's host and port, from `/info`'s `endpoints.ssh` ("host:port"). */
export function sshEndpoint(info: ConsoleIdentity["info"]) {
  const separator = info.endpoints.ssh.lastIndexOf(":");
  return { host: info.endpoints.ssh.slice(0, separator), port: Number(info.endpoints.ssh.slice(separator + 1)) };
}

/** Every way to reach one device from a terminal, each line ready to paste. */
export function connectCommands(
  info: ConsoleIdentity["info"],
  device: { namespace: string; name: string },
  user = "root",
) {
  const { host, port } = sshEndpoint(info);
  const target = `${user}@${device.namespace}.${device.name}@${host}`;
  const sshPort = port === 22 ? "" : ` -p ${port}`;
  const copyPort = port === 22 ? "" : ` -P ${port}`;
  const alias = `${device.namespace}-${device.name}`;
  return {
    ssh: `ssh${sshPort} ${target}`,
    scp: `scp${copyPort} ./file ${target}:/tmp/`,
    sftp: `sftp${copyPort} ${target}`,
    forward: `ssh${sshPort} -N -L 8080:localhost:80 ${target}`,
    config: [
      `Host ${alias}`,
      `  HostName ${host}`,
      `  Port ${port}`,
      `  User ${user}@${device.namespace}.${device.name}`,
    ].join("\n"),
    alias,
  };
}
