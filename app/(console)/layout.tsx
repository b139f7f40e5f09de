import type { ReactNode } from "react";
import { ConsoleProviders } from "@/components/console/providers";
import { ConsoleShell } from "@/components/console/shell";
import { consoleIdentity } from "@/lib/console/identity";

export const dynamic = "force-dynamic";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const identity = await consoleIdentity();
  return (
    <ConsoleProviders identity={identity}>
      <ConsoleShell>{children}</ConsoleShell>
    </ConsoleProviders>
  );
}
