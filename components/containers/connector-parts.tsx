"use client";

import { usePermission } from "../console/context";
import { Badge, SwitchField } from "../ui/controls";
import { type Connector, useEnableToggle } from "./connector-data";

const stateColor = { connected: "green", pending: "gray", disconnected: "amber", error: "red" } as const;
const stateLabel = { connected: "Connected", pending: "Waiting", disconnected: "Disconnected", error: "Error" };

/** The worker's status of a connector, with its message. */
export function ConnectorStatus({ connector }: { connector: Connector }) {
  const { State, Message } = connector.status;
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5">
      <Badge color={stateColor[State]}>{stateLabel[State]}</Badge>
      {Message && <span className="text-xs text-slate-600 dark:text-slate-400">{Message}</span>}
    </span>
  );
}

export function TlsBadge({ connector }: { connector: Connector }) {
  return connector.secure ? <Badge color="green">TLS</Badge> : <Badge color="red">Unencrypted</Badge>;
}

export function EnableSwitch({ connector }: { connector: Connector }) {
  const manage = usePermission("connector.manage");
  const toggle = useEnableToggle();
  return (
    <SwitchField
      isOn={connector.enable}
      disabled={!manage.allowed || toggle.isPending}
      title={manage.reason}
      onChange={(enable) => toggle.mutate({ connector, enable })}
    >
      <span>
        {connector.enable ? "On" : "Off"}
        <span className="sr-only">
          {" "}
          ({connector.address}:{connector.port} enabled)
        </span>
      </span>
    </SwitchField>
  );
}
