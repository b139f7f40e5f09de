import type { Metadata } from "next";
import { ConnectorsPage } from "@/components/containers/connectors-page";

export const metadata: Metadata = { title: "Connectors" };

export default function Connectors() {
  return <ConnectorsPage />;
}
