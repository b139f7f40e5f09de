"use client";

import { useMutation } from "@tanstack/react-query";
import { Container as ContainerIcon, Unplug } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { toast } from "sonner";
import { api, failureText } from "../console/api";
import { useConsole, usePermission } from "../console/context";
import { BackLink, Button } from "../ui/controls";
import { ConfirmDialog } from "../ui/dialog";
import { EmptyState, LoadFailure, LoadingRows } from "../ui/list-states";
import { CardField, ResponsiveTable } from "../ui/responsive-table";
import { type Connector, connectorPath, useConnectors, useInvalidateConnectors } from "./connector-data";
import { ConnectorForm } from "./connector-form";
import { ConnectorStatus, EnableSwitch, TlsBadge } from "./connector-parts";

export const connectorHref = (uid: string) => `/containers/connectors/${encodeURIComponent(uid)}`;

export function CloudOnly({ title }: { title: string }) {
  return (
    <div className="grid gap-5">
      <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
      <EmptyState icon={Unplug} title="Container engines are part of the cloud edition.">
        <p className="max-w-prose text-sm text-slate-600 dark:text-slate-400">
          This service runs the community edition: devices are reached through their agent.
        </p>
      </EmptyState>
    </div>
  );
}

export function DeleteConnector({
  connector,
  onClose,
  onDeleted,
}: {
  connector: Connector | undefined;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const invalidate = useInvalidateConnectors();
  const remove = useMutation({
    mutationFn: (target: Connector) => api(connectorPath(target.uid), { method: "DELETE" }),
    onSuccess: (_answer, target) => {
      toast.success(`${target.address}:${target.port} deleted`);
      invalidate();
      onClose();
      onDeleted?.();
    },
  });
  const name = connector ? `${connector.address}:${connector.port}` : "";
  return (
    <ConfirmDialog
      isOpen={connector !== undefined}
      onClose={() => {
        remove.reset();
        onClose();
      }}
      title={`Delete connector ${name}?`}
      description={`Its ${connector?.containers ?? 0} containers stop being devices of this namespace, and their sessions end. The engine and its containers are not touched.`}
      confirmLabel="Delete connector"
      isPending={remove.isPending}
      failure={remove.isError ? failureText(remove.error) : undefined}
      onConfirm={() => connector && remove.mutate(connector)}
    />
  );
}

/** The namespace's connectors: where each engine is, TLS or not, enabled, its status and containers. */
export function ConnectorsPage() {
  const { edition } = useConsole();
  const connectors = useConnectors();
  const manage = usePermission("connector.manage");
  const [editing, setEditing] = useState<Connector | "new">();
  const [deleting, setDeleting] = useState<Connector>();
  if (edition !== "cloud") return <CloudOnly title="Connectors" />;
  const list = connectors.data?.data ?? [];

  const addButton = (
    <Button deniedReason={manage.reason} onClick={() => setEditing("new")}>
      Add connector
    </Button>
  );
  const name = (connector: Connector) => (
    <Link
      href={connectorHref(connector.uid)}
      className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
    >
      {connector.address}:{connector.port}
    </Link>
  );
  const actions = (connector: Connector) => (
    <span className="inline-flex gap-2">
      <Button size="sm" variant="secondary" deniedReason={manage.reason} onClick={() => setEditing(connector)}>
        Edit<span className="sr-only"> {connector.address}</span>
      </Button>
      <Button size="sm" variant="ghost" deniedReason={manage.reason} onClick={() => setDeleting(connector)}>
        Delete<span className="sr-only"> {connector.address}</span>
      </Button>
    </span>
  );

  return (
    <div className="grid gap-5">
      <BackLink href="/containers" label="Containers" />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Connectors</h1>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Docker engines this service connects to. Their running containers are devices you reach with ssh, scp and
            the terminal, with no agent inside.
          </p>
        </div>
        {addButton}
      </div>
      {connectors.isError ? (
        <LoadFailure
          message={`The connectors could not be loaded. ${failureText(connectors.error)}`}
          onRetry={() => connectors.refetch()}
        />
      ) : connectors.isPending ? (
        <LoadingRows label="Loading connectors" />
      ) : list.length === 0 ? (
        <EmptyState icon={ContainerIcon} title="No connector yet.">
          {addButton}
        </EmptyState>
      ) : (
        <ResponsiveTable
          label="Connectors"
          items={list}
          keyOf={(connector) => connector.uid}
          columns={[
            { header: "Engine", cell: name, className: "whitespace-nowrap" },
            { header: "TLS", cell: (connector) => <TlsBadge connector={connector} /> },
            { header: "Status", cell: (connector) => <ConnectorStatus connector={connector} />, className: "min-w-40" },
            {
              header: "Containers",
              cell: (connector) => connector.containers.toLocaleString(),
              className: "tabular-nums",
            },
            { header: "Enabled", cell: (connector) => <EnableSwitch connector={connector} /> },
            { header: null, cell: actions, className: "text-right whitespace-nowrap" },
          ]}
          card={(connector) => (
            <>
              <div className="flex items-center justify-between gap-2">
                {name(connector)}
                <TlsBadge connector={connector} />
              </div>
              <CardField label="Status">
                <ConnectorStatus connector={connector} />
              </CardField>
              <CardField label="Containers">{connector.containers.toLocaleString()}</CardField>
              <div className="flex flex-wrap items-center justify-between gap-2">
                <EnableSwitch connector={connector} />
                {actions(connector)}
              </div>
            </>
          )}
        />
      )}
      {editing && (
        <ConnectorForm connector={editing === "new" ? undefined : editing} onClose={() => setEditing(undefined)} />
      )}
      <DeleteConnector connector={deleting} onClose={() => setDeleting(undefined)} />
    </div>
  );
}
