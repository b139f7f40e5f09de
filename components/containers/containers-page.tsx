"use client";

import { Container as ContainerIcon } from "lucide-react";
import Link from "next/link";
import { failureText } from "../console/api";
import { useConsole } from "../console/context";
import { Button, StateDot } from "../ui/controls";
import { EmptyState, LoadFailure, LoadingRows } from "../ui/list-states";
import { CardField, ResponsiveTable } from "../ui/responsive-table";
import { type Container, useConnectors, useContainers } from "./connector-data";
import { CloudOnly, connectorHref } from "./connectors-page";

const deviceHref = (uid: string) => `/devices/${encodeURIComponent(uid)}`;

/** The namespace's containers: devices as the device table shows them, with image and connector. */
export function ContainersPage() {
  const { edition } = useConsole();
  const containers = useContainers();
  const connectors = useConnectors();
  if (edition !== "cloud") return <CloudOnly title="Containers" />;
  const list = containers.data?.data ?? [];
  const engineOf = (container: Container) => {
    const connector = connectors.data?.data.find((item) => item.uid === container.container.connector_uid);
    return connector ? `${connector.address}:${connector.port}` : "—";
  };
  const name = (container: Container) => (
    <Link href={deviceHref(container.uid)} className="font-medium text-indigo-700 hover:underline dark:text-indigo-300">
      {container.name}
    </Link>
  );
  const connectorLink = (container: Container) => (
    <Link href={connectorHref(container.container.connector_uid)} className="hover:underline">
      {engineOf(container)}
    </Link>
  );
  // "pending" → "Pending": a word of the interface, as in the device table.
  const status = (container: Container) => container.status.charAt(0).toUpperCase() + container.status.slice(1);

  return (
    <div className="grid gap-5">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Containers</h1>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Running containers of your connected engines. Accept one like a device to reach it with ssh.
          </p>
        </div>
        <Link href="/containers/connectors">
          <Button variant="secondary" tabIndex={-1}>
            Connectors
          </Button>
        </Link>
      </div>
      {containers.isError ? (
        <LoadFailure
          message={`The containers could not be loaded. ${failureText(containers.error)}`}
          onRetry={() => containers.refetch()}
        />
      ) : containers.isPending ? (
        <LoadingRows label="Loading containers" />
      ) : list.length === 0 ? (
        <EmptyState icon={ContainerIcon} title="No containers: add a connector to a Docker engine.">
          <Link
            href="/containers/connectors"
            className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300"
          >
            Connectors
          </Link>
        </EmptyState>
      ) : (
        <ResponsiveTable
          label="Containers"
          items={list}
          keyOf={(container) => container.uid}
          columns={[
            { header: "Name", cell: name },
            {
              header: "Online",
              cell: (container) => <StateDot isOn={container.online} label={container.online ? "Online" : "Offline"} />,
            },
            {
              header: "Image",
              cell: (container) => <span className="font-mono text-xs">{container.container.image}</span>,
            },
            { header: "Connector", cell: connectorLink },
            { header: "Status", cell: status },
          ]}
          card={(container) => (
            <>
              <div className="flex items-center justify-between gap-2">
                {name(container)}
                <StateDot isOn={container.online} label={container.online ? "Online" : "Offline"} />
              </div>
              <CardField label="Image">
                <span className="font-mono text-xs">{container.container.image}</span>
              </CardField>
              <CardField label="Connector">{connectorLink(container)}</CardField>
              <CardField label="Status">{status(container)}</CardField>
            </>
          )}
        />
      )}
    </div>
  );
}
