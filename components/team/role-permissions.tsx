import { Check, Minus } from "lucide-react";
import { type Action, actions, can, type MemberRole } from "@/lib/auth/roles";

/** Roles from the least to the most powerful, as the table's columns. */
export const ascendingRoles: MemberRole[] = ["observer", "operator", "administrator", "owner"];

/** What each action of the permission table lets a person do, in the console's words. */
const actionLabels: Record<Action, string> = {
  "namespace.read": "See the namespace, its members and settings",
  "namespace.update": "Rename the namespace and change its settings",
  "namespace.delete": "Delete the namespace",
  "member.add": "Add members",
  "member.update": "Change members' roles",
  "member.remove": "Remove members",
  "apikey.read": "See API keys",
  "apikey.create": "Create API keys",
  "apikey.update": "Rename API keys",
  "apikey.delete": "Delete API keys",
  "session-record.read": "See whether sessions are recorded",
  "session-record.update": "Turn session recording on or off",
  "device.read": "See devices",
  "device.update": "Rename devices and switch their public URL",
  "device.status": "Accept and reject devices",
  "device.tag": "Tag devices",
  "device.delete": "Remove devices",
  "device.connect": "Connect to devices",
  "tag.read": "See tags",
  "tag.manage": "Rename and delete tags",
  "publickey.read": "See public keys",
  "publickey.manage": "Add, edit and delete public keys",
  "session.read": "See sessions",
  "session.play": "Replay recorded sessions",
  "session.close": "Close live sessions",
  "firewall.read": "See firewall rules",
  "firewall.manage": "Add, edit and delete firewall rules",
  "connector.read": "See container-engine connectors and their engines",
  "connector.manage": "Add, edit and delete container-engine connectors",
  "stats.read": "See the dashboard's counters",
  "audit.view": "Read the audit trail (activity)",
  "webhook.manage": "Add, edit and test webhooks, see their deliveries",
  "billing.manage": "Manage billing: plan, payment methods, the devices to keep",
};

/**
 * "What can each role do": drawn from the permission table the server checks
 * (`lib/auth/roles.ts`), so it cannot disagree with what the API allows.
 */
export function RolePermissions() {
  return (
    <details className="group rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
      <summary className="cursor-pointer px-4 py-3 text-sm font-semibold">What can each role do?</summary>
      {/* On a phone the table scrolls sideways: the region takes focus so the keyboard can scroll it. */}
      <section
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
        tabIndex={0}
        aria-label="What each role may do"
        className="relative overflow-x-auto border-t border-slate-200 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:border-slate-800"
      >
        <table className="min-w-full text-xs sm:text-sm">
          <caption className="sr-only">What each role may do</caption>
          <thead className="bg-slate-50 text-slate-700 dark:bg-slate-800/50 dark:text-slate-300">
            <tr>
              <th scope="col" className="px-3 py-2 text-left font-semibold">
                Action
              </th>
              {ascendingRoles.map((role) => (
                <th key={role} scope="col" className="px-3 py-2 text-center font-semibold capitalize">
                  {role}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
            {actions.map((action) => (
              <tr key={action}>
                <th scope="row" className="px-3 py-1.5 text-left font-normal">
                  {actionLabels[action]}
                </th>
                {ascendingRoles.map((role) => (
                  <td key={role} className="px-3 py-1.5 text-center">
                    {can(role, action) ? (
                      <Check aria-hidden className="inline size-4 text-emerald-600 dark:text-emerald-400" />
                    ) : (
                      <Minus aria-hidden className="inline size-4 text-slate-400" />
                    )}
                    <span className="sr-only">{can(role, action) ? "yes" : "no"}</span>
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </details>
  );
}
