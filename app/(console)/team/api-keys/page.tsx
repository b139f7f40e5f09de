import type { Metadata } from "next";
import { ApiKeysPage } from "@/components/team/api-keys";

export const metadata: Metadata = { title: "API keys" };

export default function ApiKeys() {
  return <ApiKeysPage />;
}
