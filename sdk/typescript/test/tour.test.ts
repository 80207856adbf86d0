// The README's tour through the TypeScript client, against the local stack
// whose address WORKSPACEAPI_TEST_URL gives (the repository's infra/sdktest
// starts it with the demo fixture and runs `npm test`, in make test).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError, all, createWorkspaceClient, type ClientOptions } from "../src/index.js";

const baseUrl = process.env.WORKSPACEAPI_TEST_URL;
const skip = baseUrl ? false : "WORKSPACEAPI_TEST_URL is not set: the tour runs against the local stack (go test ./infra/sdktest)";
const adminKey = "wk_demoAdminKey0000000000000000000000000001";
const readOnlyKey = "wk_demoReadOnlyKey0000000000000000000000002";
const client = (apiKey: string, more: Partial<ClientOptions> = {}) =>
  createWorkspaceClient({ baseUrl: baseUrl ?? "", apiKey, ...more });

const isApiError = (status: number) => (e: unknown) => e instanceof ApiError && e.status === status && e.message !== "";

test("lists every agent page by page", { skip }, async () => {
  const c = client(adminKey);
  let pages = 0;
  const ids: string[] = [];
  for await (const agent of all(async (cursor) => {
    pages++;
    const { data } = await c.GET("/workspaceapi/agents", { params: { query: { limit: 2, cursor } } });
    return { items: data!.agents, next: data!.nextCursor };
  })) {
    ids.push(agent.id);
  }
  assert.equal(ids.length, 6);
  assert.deepEqual(ids, [...ids].sort());
  assert.equal(pages, 3);
});

test("pages through the members", { skip }, async () => {
  const c = client(adminKey);
  let n = 0;
  for await (const _ of all(async (cursor) => {
    const { data } = await c.GET("/workspaceapi/members", { params: { query: { limit: 3, cursor } } });
    return { items: data!.members, next: data!.nextCursor };
  })) {
    n++;
  }
  assert.equal(n, 10);
});

test("sets and removes credit limits", { skip }, async () => {
  const c = client(adminKey);
  const { data } = await c.POST("/workspaceapi/agents/credit-limits", {
    body: { ids: ["agt_kb_search"], dailyCreditLimit: 7, monthlyCreditLimit: null },
  });
  assert.ok(data && "results" in data && data.results.length === 1 && data.results[0].success);
  const list = await c.GET("/workspaceapi/agents", { params: { query: { includeOverview: true } } });
  const agent = list.data!.agents.find((a) => a.id === "agt_kb_search");
  assert.equal(agent?.overview?.dailyCreditLimit, 7);
  assert.equal(agent?.overview?.monthlyCreditLimit, null);
});

test("invites, and errors are typed", { skip }, async () => {
  const { data, response } = await client(adminKey).POST("/workspaceapi/invites", {
    body: { email: "ts-tour@acme.example", role: "member", teams: [{ teamId: "team_platform", role: "member" }] },
  });
  assert.equal(response.status, 201);
  assert.ok(data && data.id.startsWith("inv_"));
  await assert.rejects(
    client(readOnlyKey).POST("/workspaceapi/invites", { body: { email: "ann@acme.example", role: "member" } }),
    isApiError(403),
  );
  await assert.rejects(
    client(adminKey).POST("/workspaceapi/invites", { body: { email: "someone@gmail.com", role: "member" } }),
    isApiError(400),
  );
  await assert.rejects(client("").GET("/workspaceapi/invites"), (e: unknown) => e instanceof ApiError && e.status === 401 && e.message === "missing or invalid API key");
});

test("tags are idempotent under one key", { skip }, async () => {
  const c = client(adminKey);
  const params = { header: { "Idempotency-Key": "sdk-ts-tour-tags" } };
  const first = await c.POST("/workspaceapi/agents/tags", { params, body: { ids: ["agt_kb_search"], tags: ["faq"] } });
  const again = await c.POST("/workspaceapi/agents/tags", { params, body: { ids: ["agt_kb_search"], tags: ["faq"] } });
  assert.equal(again.response.headers.get("Idempotent-Replayed"), "true");
  assert.deepEqual(again.data, first.data);
  await assert.rejects(
    c.POST("/workspaceapi/agents/tags", { params, body: { ids: ["agt_kb_search"], tags: ["docs"] } }),
    isApiError(422),
  );
});

test("a retried write is applied once", { skip }, async () => {
  // The first answer is lost after the server acted, as when a connection is cut.
  const keys: (string | null)[] = [];
  let calls = 0;
  const lossy = async (req: Request) => {
    keys.push(req.headers.get("Idempotency-Key"));
    const res = await fetch(req);
    if (++calls === 1) {
      await res.arrayBuffer();
      throw new TypeError("fetch failed (simulated)");
    }
    return res;
  };
  const { response } = await client(adminKey, { fetch: lossy }).POST("/workspaceapi/teams", { body: { name: "SDK TS Retry" } });
  assert.equal(response.status, 201);
  assert.equal(response.headers.get("Idempotent-Replayed"), "true");
  assert.equal(keys.length, 2);
  assert.ok(keys[0]);
  assert.equal(keys[0], keys[1]);
  const teams = await client(adminKey).GET("/workspaceapi/teams");
  assert.equal(JSON.stringify(teams.data).split('"SDK TS Retry"').length - 1, 1);
});

test("creates, uses and revokes a key", { skip }, async () => {
  const admin = client(adminKey);
  const { data } = await admin.POST("/workspaceapi/keys", { body: { name: "SDK TS tour", scopes: ["read"], expiresInDays: 30 } });
  assert.ok(data && "key" in data && data.key.startsWith("wk_"));
  const reader = client(data.key);
  await reader.GET("/workspaceapi/agents");
  await admin.DELETE("/workspaceapi/keys/{keyId}", { params: { path: { keyId: data.id } } });
  await assert.rejects(reader.GET("/workspaceapi/agents"), isApiError(401));
});
