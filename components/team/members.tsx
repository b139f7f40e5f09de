"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { UserPlus } from "lucide-react";
import { type FormEvent, useState } from "react";
import { toast } from "sonner";
import { type FieldErrors, fieldErrorsOf, focusFirstInvalid } from "@/components/auth/field-errors";
import { Badge, Button, Callout, Card, SelectField, selectStyle, TextField } from "@/components/ui/controls";
import { ConfirmDialog } from "@/components/ui/dialog";
import { LoadFailure, LoadingRows } from "@/components/ui/list-states";
import { RelativeTime } from "@/components/ui/relative-time";
import { ResponsiveTable } from "@/components/ui/responsive-table";
import { isRoleAbove, type MemberRole } from "@/lib/auth/roles";
import { addMemberBody } from "@/lib/schemas/namespaces";
import { ApiFailure, api, failureText, json } from "../console/api";
import { useConsole, usePermission } from "../console/context";
import { type Member, type Namespace, useMoveOutOfNamespace, useNamespace } from "../console/namespace-switcher";
import { queryKeys } from "../console/query-keys";
import { ascendingRoles, RolePermissions } from "./role-permissions";
import { TeamTabs } from "./team-tabs";

const membersPath = (tenant: string) => `/api/namespaces/${encodeURIComponent(tenant)}/members`;

/** Roles a member may hand out: up to their own, never owner (a namespace has one owner). */
export const grantableRoles = (own: MemberRole | undefined) =>
  ascendingRoles.filter((role) => role !== "owner" && own !== undefined && !isRoleAbove(role, own));

const roleColors: Record<MemberRole, "indigo" | "green" | "gray" | "amber"> = {
  owner: "indigo",
  administrator: "green",
  operator: "gray",
  observer: "gray",
};

/** The namespace answer of a member operation replaces the cached namespace. */
function useMemberMutation<V>(call: (value: V) => Promise<{ data: Namespace }>) {
  const queryClient = useQueryClient();
  const { tenant } = useConsole();
  return useMutation({
    mutationFn: call,
    onSuccess: (answer) => queryClient.setQueryData(queryKeys.namespace(tenant), answer),
  });
}

function AddMemberForm() {
  const { tenant, role } = useConsole();
  const permission = usePermission("member.add");
  const [errors, setErrors] = useState<FieldErrors>({});
  const add = useMemberMutation((input: { identifier: string; role: MemberRole }) =>
    api<Namespace>(membersPath(tenant), { method: "POST", body: json(input) }),
  );
  const roles = grantableRoles(role);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const values = { identifier: String(data.get("identifier") ?? "").trim(), role: data.get("role") };
    const found = fieldErrorsOf(addMemberBody, values);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      focusFirstInvalid(form, found);
      return;
    }
    const input = addMemberBody.parse(values);
    add.mutate(input, {
      onSuccess: (answer) => {
        form.reset();
        const added = answer.data.members.find(
          (member) => member.username === input.identifier || member.email === input.identifier.toLowerCase(),
        );
        toast.success(
          added?.status === "pending"
            ? `Invitation mailed to ${added.username}`
            : `${added?.username ?? input.identifier} added as ${input.role}`,
        );
      },
      onError: (failure) => {
        const status = failure instanceof ApiFailure ? failure.status : 0;
        const message = failureText(failure);
        const mapped: FieldErrors =
          status === 404
            ? { identifier: "No account has this username or e-mail." }
            : status === 409
              ? { identifier: message }
              : status === 403
                ? { role: message }
                : {};
        setErrors(mapped);
        focusFirstInvalid(form, mapped);
      },
    });
  }

  const isFieldError = Object.values(errors).some(Boolean);
  return (
    <Card className="grid gap-3 p-4">
      <h2 className="font-semibold">Add a member</h2>
      {permission.reason && <p className="text-sm text-slate-600 dark:text-slate-400">{permission.reason}.</p>}
      <form onSubmit={submit} noValidate className="grid gap-3 sm:grid-cols-[1fr_12rem_auto] sm:items-start">
        <TextField
          label="Username or e-mail"
          name="identifier"
          autoComplete="off"
          error={errors.identifier}
          disabled={!permission.allowed}
          hint="The person needs an account of this service."
        />
        <SelectField
          label="Role"
          name="role"
          defaultValue="observer"
          disabled={!permission.allowed}
          error={errors.role}
        >
          {(roles.length > 0 ? roles : ["observer" as const]).map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </SelectField>
        <Button type="submit" className="sm:mt-7" isPending={add.isPending} deniedReason={permission.reason}>
          <UserPlus aria-hidden className="size-4" /> Add member
        </Button>
      </form>
      {add.isError && !isFieldError && <Callout kind="error">{failureText(add.error)}</Callout>}
    </Card>
  );
}

/** Why the signed-in member may not change or remove `member`, if they may not. */
function useMemberDenial(member: Member, action: "member.update" | "member.remove") {
  const { user, role } = useConsole();
  const permission = usePermission(action);
  if (member.id === user.id) return "You cannot change your own membership: leave the namespace instead";
  if (member.role === "owner") return "The owner's role cannot be changed and the owner cannot be removed";
  if (!permission.allowed) return permission.reason;
  if (role && !isRoleAbove(role, member.role)) return `Only a role above ${member.role} can change this member`;
  return undefined;
}

function RoleSelect({ member }: { member: Member }) {
  const { tenant, role } = useConsole();
  const denied = useMemberDenial(member, "member.update");
  const change = useMemberMutation((to: MemberRole) =>
    api<Namespace>(`${membersPath(tenant)}/${member.id}`, { method: "PATCH", body: json({ role: to }) }),
  );
  const choices = denied ? [member.role] : grantableRoles(role);
  const reasonId = `role-reason-${member.id}`;
  return (
    <div className="grid gap-1">
      <select
        aria-label={`Change role of ${member.username}`}
        aria-describedby={denied ? reasonId : undefined}
        title={denied}
        value={member.role}
        disabled={denied !== undefined || change.isPending}
        onChange={(event) => {
          const to = event.target.value as MemberRole;
          change.mutate(to, { onSuccess: () => toast.success(`${member.username} is now ${to}`) });
        }}
        className={`${selectStyle} py-1.5 disabled:cursor-not-allowed disabled:opacity-60`}
      >
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
      {denied && (
        <span id={reasonId} className="sr-only">
          {denied}
        </span>
      )}
      {change.isError && (
        <p role="alert" className="text-xs font-medium text-red-700 dark:text-red-400">
          {failureText(change.error)}
        </p>
      )}
    </div>
  );
}

function RemoveMember({ member }: { member: Member }) {
  const { tenant, user } = useConsole();
  const namespace = useNamespace().data?.data;
  const denied = useMemberDenial(member, "member.remove");
  const [isAsking, setAsking] = useState(false);
  const remove = useMemberMutation(() => api<Namespace>(`${membersPath(tenant)}/${member.id}`, { method: "DELETE" }));
  const isInvited = member.status === "pending";
  // The owner's row and one's own have no remove: the owner stays, and one leaves instead.
  if (member.role === "owner" || member.id === user.id) return null;
  return (
    <>
      <Button size="sm" variant="secondary" deniedReason={denied} onClick={() => setAsking(true)}>
        {isInvited ? "Cancel invitation" : "Remove"}
        <span className="sr-only"> {member.username}</span>
      </Button>
      <ConfirmDialog
        isOpen={isAsking}
        onClose={() => {
          setAsking(false);
          remove.reset();
        }}
        title={
          isInvited
            ? `Cancel the invitation of ${member.username}?`
            : `Remove ${member.username} from ${namespace?.name ?? "this namespace"}?`
        }
        description={
          isInvited
            ? "The mailed link stops working. You can add them again later."
            : "They lose access to its devices at once, and the API keys they created in this namespace are deleted."
        }
        confirmLabel={isInvited ? "Cancel invitation" : `Remove ${member.username}`}
        isPending={remove.isPending}
        failure={remove.isError ? failureText(remove.error) : undefined}
        onConfirm={() =>
          remove.mutate(undefined, {
            onSuccess: () => {
              setAsking(false);
              toast.success(`${member.username} ${isInvited ? "is no longer invited" : "removed"}`);
            },
          })
        }
      />
    </>
  );
}

function MemberName({ member }: { member: Member }) {
  const { user } = useConsole();
  return (
    <span className="font-medium">
      {member.username}
      {member.id === user.id && <span className="font-normal text-slate-600 dark:text-slate-400"> (you)</span>}
    </span>
  );
}

function RoleBadge({ member }: { member: Member }) {
  return (
    <span className="inline-flex flex-wrap gap-1">
      <Badge color={roleColors[member.role]}>{member.role}</Badge>
      {member.status === "pending" && <Badge color="amber">invited</Badge>}
    </span>
  );
}

function MemberList({ members }: { members: Member[] }) {
  return (
    <ResponsiveTable
      label="Members"
      items={members}
      keyOf={(member) => member.id}
      columns={[
        { header: "Name", cell: (member) => <MemberName member={member} />, className: "whitespace-nowrap" },
        { header: "E-mail", cell: (member) => member.email, className: "break-all" },
        { header: "Role", cell: (member) => <RoleBadge member={member} /> },
        {
          header: "Joined",
          cell: (member) => <RelativeTime value={member.added_at} />,
          className: "whitespace-nowrap",
        },
        { header: null, cell: (member) => <MemberActions member={member} /> },
      ]}
      card={(member) => (
        <>
          <div className="flex items-center justify-between gap-2">
            <MemberName member={member} />
            <RoleBadge member={member} />
          </div>
          <p className="text-xs break-all text-slate-600 dark:text-slate-400">
            {member.email} · joined <RelativeTime value={member.added_at} />
          </p>
          <MemberActions member={member} />
        </>
      )}
    />
  );
}

function MemberActions({ member }: { member: Member }) {
  return (
    <div className="flex flex-wrap items-start gap-2 sm:justify-end">
      <RoleSelect member={member} />
      <RemoveMember member={member} />
    </div>
  );
}

function LeaveNamespace({ namespace }: { namespace: Namespace }) {
  const { tenant } = useConsole();
  const moveOut = useMoveOutOfNamespace();
  const [isAsking, setAsking] = useState(false);
  const leave = useMutation({
    mutationFn: () => api(membersPath(tenant), { method: "DELETE" }),
    onSuccess: async () => {
      toast.success(`You left ${namespace.name}`);
      await moveOut();
    },
  });
  return (
    <Card className="grid gap-3 p-4">
      <h2 className="font-semibold">Leave this namespace</h2>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        You lose access to its devices at once; an administrator has to add you again to come back.
      </p>
      <div>
        <Button variant="danger" onClick={() => setAsking(true)}>
          Leave namespace
        </Button>
      </div>
      <ConfirmDialog
        isOpen={isAsking}
        onClose={() => {
          setAsking(false);
          leave.reset();
        }}
        title={`Leave ${namespace.name}?`}
        description="Your API keys of this namespace are deleted with your membership. The console then opens another of your namespaces."
        confirmLabel={`Leave ${namespace.name}`}
        isPending={leave.isPending}
        failure={leave.isError ? failureText(leave.error) : undefined}
        onConfirm={() => leave.mutate()}
      />
    </Card>
  );
}

/** The team page: who is a member, with which role, and how to add, change, remove or leave. */
export function MembersPage() {
  const { role } = useConsole();
  const query = useNamespace();
  const namespace = query.data?.data;
  return (
    <div className="grid grid-cols-1 gap-6">
      <div className="grid gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Team</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          The people who may use {namespace ? <strong>{namespace.name}</strong> : "this namespace"}, and what their role
          lets them do.
        </p>
      </div>
      <TeamTabs />
      <AddMemberForm />
      {query.isError ? (
        <LoadFailure
          message={`The members could not be loaded. ${failureText(query.error)}`}
          onRetry={() => query.refetch()}
        />
      ) : !namespace ? (
        <LoadingRows label="Loading members" />
      ) : (
        <MemberList members={namespace.members} />
      )}
      <RolePermissions />
      {namespace && role !== "owner" && <LeaveNamespace namespace={namespace} />}
    </div>
  );
}
