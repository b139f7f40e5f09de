import type { Metadata } from "next";
import { ConnectorDetail } from "@/components/containers/connector-detail";

export const metadata: Metadata = { title: "Connector" };

export default async function ConnectorPage({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  return <ConnectorDetail uid={uid} />;
}
