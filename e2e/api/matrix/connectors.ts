import { inject } from "vitest";
import { call } from "@/testing/client";
import type { SeededNamespace } from "@/testing/seeds/namespaces";
import type { Entry } from "../support/matrix";

/** A connector to the run's Docker engine, disabled (the worker leaves it alone); made by its owner. */
const newConnector = () => ({ enable: false, address: "127.0.0.1", port: inject("dockerEngine").port });

async function connectorIn(namespace: SeededNamespace) {
  const response = await call("POST", "/api/connector", { token: namespace.owner.tenantToken, body: newConnector() });
  if (response.status !== 200) throw new Error(`connector create failed: ${response.status} ${response.text}`);
  return response.body.uid as string;
}

/** Valid requests for the connector operations (see e2e/api/role-matrix.test.ts). */
export const requests: Record<string, Entry> = {
  createConnector: { request: () => ({ body: newConnector() }) },
  listConnectors: { request: () => ({ query: "page=1&per_page=5&enable=false" }) },
  getConnector: { request: async (namespace) => ({ params: { uid: await connectorIn(namespace) } }) },
  updateConnector: {
    request: async (namespace) => ({ params: { uid: await connectorIn(namespace) }, body: { port: 1 } }),
  },
  deleteConnector: { request: async (namespace) => ({ params: { uid: await connectorIn(namespace) } }) },
  getConnectorInfo: { request: async (namespace) => ({ params: { uid: await connectorIn(namespace) } }) },
};
