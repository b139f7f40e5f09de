import type { Metadata } from "next";
import { ContainersPage } from "@/components/containers/containers-page";

export const metadata: Metadata = { title: "Containers" };

export default function Containers() {
  return <ContainersPage />;
}
