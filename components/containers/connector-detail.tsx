"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { ApiFailure, failureText } from "../console/api";
import { useConsole, usePermission } from "../console/context";
import { BackLink, Button, Callout, Card, NotFoundNotice } from "../ui/controls";
import { Facts } from "../ui/facts";
import { LoadFailure, LoadingRows } from "../ui/list-states";
import { useConnector, useEngineInfo } from "./connector-data";
import { ConnectorForm } from "./connector-form";
import { ConnectorStatus, EnableSwitch, TlsBadge } from "./connector-parts";
import { CloudOnly, DeleteConnector } from "./connectors-page";

/** The engine's own info, asked as the page opens. */
function EngineInfoCard({ uid }: { uid: string }) {
  const info = useEngineInfo(uid);
  return (
    <Card className="p-4">
      <h2 className="mb-3 text-base font-semibold">Engine</h2>
      {info.isPending ? (
        <LoadingRows label="Asking the engine" />
      ) : info.isError ? (
        <LoadFailure message={failureText(info.error)} onRetry={() => info.refetch()} />
      ) : (
        <Facts
          rows={[
            [
              "ID",
              <span key="id" className="font-mono text-xs">
                {info.data.data.ID}
              </span>,
            ],
            [
              "Containers",
              `${info.data.data.Containers} (${info.data.data.ContainersRunning} running, ${info.data.data.ContainersPaused} paused, ${info.data.data.ContainersStopped} stopped)`,
            ],
            ["Images", String(info.data.data.Images)],
            ["Storage driver", info.data.data.Driver],
            ["Driver status", info.data.data.DriverStatus.map((pair) => pair.join(": ")).join(", ")],
            ["Volume plugins", info.data.data.Plugins.Volume.join(", ")],
            ["Network plugins", info.data.data.Plugins.Network.join(", ")],
          ]}
        />
      )}
    </Card>
  );
}

/** One connector: where it dials, its status, the engine's info, and a warning when unencrypted. */
export function ConnectorDetail({ uid }: { uid: string }) {
  const { edition } = useConsole();
  const connector = useConnector(uid);
  const manage = usePermission("connector.manage");
  const router = useRouter();
  const [isEditing, setIsEditing] = useState(false);
  const [isDeleting, setIsDeleting] = useState(false);
  if (edition !== "cloud") return <CloudOnly title="Connector" />;
  if (connector.isError && connector.error instanceof ApiFailure && connector.error.status === 404) {
    return (
      <NotFoundNotice title="Connector not found" back={{ href: "/containers/connectors", label: "Connectors" }}>
        No connector of this namespace has this ID: it was deleted, or belongs to another namespace.
      </NotFoundNotice>
    );
  }
  const item = connector.data?.data;
  return (
    <div className="grid gap-5">
      <BackLink href="/containers/connectors" label="Connectors" />
      {connector.isError ? (
        <LoadFailure message={failureText(connector.error)} onRetry={() => connector.refetch()} />
      ) : !item ? (
        <LoadingRows label="Loading the connector" />
      ) : (
        <>
          <div className="flex flex-wrap items-end justify-between gap-3">
            <div className="grid gap-1">
              <h1 className="text-2xl font-semibold tracking-tight break-all">
                {item.address}:{item.port}
              </h1>
              <span className="inline-flex items-center gap-2">
                <TlsBadge connector={item} />
                <ConnectorStatus connector={item} />
              </span>
            </div>
            <span className="inline-flex gap-2">
              <Button variant="secondary" deniedReason={manage.reason} onClick={() => setIsEditing(true)}>
                Edit
              </Button>
              <Button variant="danger" deniedReason={manage.reason} onClick={() => setIsDeleting(true)}>
                Delete
              </Button>
            </span>
          </div>
          {!item.secure && (
            <Callout kind="error">
              <strong>Unencrypted connection.</strong> This engine's API is reached over plain HTTP: anyone on the way
              can read and change what passes, and anyone who reaches its port controls its containers. Use TLS with a
              client certificate.
            </Callout>
          )}
          <Card className="p-4">
            <Facts
              rows={[
                ["Enabled", <EnableSwitch key="enabled" connector={item} />],
                ["Containers", `${item.containers} device${item.containers === 1 ? "" : "s"}`],
                [
                  "Connector ID",
                  <span key="uid" className="font-mono text-xs">
                    {item.uid}
                  </span>,
                ],
              ]}
            />
          </Card>
          <EngineInfoCard uid={uid} />
          {isEditing && <ConnectorForm connector={item} onClose={() => setIsEditing(false)} />}
          <DeleteConnector
            connector={isDeleting ? item : undefined}
            onClose={() => setIsDeleting(false)}
            onDeleted={() => router.push("/containers/connectors")}
          />
        </>
      )}
    </div>
  );
}
