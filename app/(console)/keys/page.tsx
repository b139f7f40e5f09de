import type { Metadata } from "next";
import { KeysPage } from "@/components/keys/keys-page";

export const metadata: Metadata = { title: "Public keys" };

export default function Keys() {
  return <KeysPage />;
}
