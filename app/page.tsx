import { describeServer } from "@/lib/services/service";

export const dynamic = "force-dynamic";

export default function HomePage() {
  const { version, endpoints } = describeServer();
  return (
    <main className="mx-auto max-w-2xl px-6 py-16">
      <h1 className="text-3xl font-semibold">Device access service</h1>
      <p className="mt-4 text-slate-600 dark:text-slate-300">
        Reach Linux devices behind NAT and firewalls over SSH. The API is served on this address; the OpenAPI document
        is at{" "}
        <a className="text-blue-700 underline dark:text-blue-300" href="/api/openapi.json">
          /api/openapi.json
        </a>
        .
      </p>
      <dl className="mt-8 grid grid-cols-[max-content_1fr] gap-x-6 gap-y-2 text-sm">
        <dt className="font-medium">Version</dt>
        <dd>{version}</dd>
        <dt className="font-medium">API</dt>
        <dd className="font-mono">{endpoints.api}</dd>
        <dt className="font-medium">SSH</dt>
        <dd className="font-mono">{endpoints.ssh}</dd>
      </dl>
    </main>
  );
}
