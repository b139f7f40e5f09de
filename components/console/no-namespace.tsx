"use client";

import { Card } from "@/components/ui/controls";
import { CreateNamespaceForm, useSwitchNamespace } from "./namespace-switcher";

/** A user without a namespace: devices join a namespace, so the first step is to make one. */
export function NoNamespace() {
  const { switchTo, isSwitching } = useSwitchNamespace();
  return (
    <div className="mx-auto grid max-w-lg gap-4">
      <h1 className="text-2xl font-semibold tracking-tight">Create your first namespace</h1>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        A namespace holds your devices, the people who may reach them and the rules they follow. Its name is part of
        every SSH address, e.g. <code className="font-mono">root@production.web-1@host</code>.
      </p>
      <Card className="p-2">
        <CreateNamespaceForm onCreated={switchTo} />
      </Card>
      {isSwitching && <p role="status">Opening the namespace…</p>}
    </div>
  );
}
