import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError, all, createWorkspaceClient, DEFAULT_ATTEMPTS } from "../src/index.js";

type Reply = { status: number; retryAfter?: string; body: string };

// A fetch that answers the given replies in turn and records the requests.
function fake(replies: Reply[]) {
  const sent: { method: string; headers: Headers; body: string }[] = [];
  const waits: number[] = [];
  const client = (extra: { attempts?: number } = {}) =>
    createWorkspaceClient({
      baseUrl: "http://api.test/",
      apiKey: "wk_test",
      ...extra,
      sleep: async (ms) => {
        waits.push(ms);
      },
      fetch: async (req) => {
        sent.push({ method: req.method, headers: req.headers, body: await req.text() });
        const r = replies[Math.min(sent.length, replies.length) - 1];
        const headers: Record<string, string> = { "Content-Type": "application/json" };
        if (r.retryAfter) headers["Retry-After"] = r.retryAfter;
        return new Response(r.body, { status: r.status, headers });
      },
    });
  return { client, sent, waits };
}

const team = '{"id":"team_x","name":"X","createdAt":"2026-11-28T00:00:00.000Z"}';

test("a write is retried after Retry-After under one Idempotency-Key", async () => {
  const f = fake([
    { status: 503, retryAfter: "2", body: '{"error":"service unavailable"}' },
    { status: 409, retryAfter: "1", body: '{"error":"still running"}' },
    { status: 201, body: team },
  ]);
  const { data, response } = await f.client().POST("/workspaceapi/teams", { body: { name: "X" } });
  assert.equal(response.status, 201);
  assert.ok(data && "name" in data && data.name === "X");
  assert.deepEqual(f.waits, [2000, 1000]);
  const key = f.sent[0].headers.get("Idempotency-Key");
  assert.ok(key);
  for (const s of f.sent) {
    assert.equal(s.headers.get("Idempotency-Key"), key);
    assert.equal(s.headers.get("Authorization"), "Bearer wk_test");
    assert.equal(s.body, '{"name":"X"}');
  }
});

test("the caller's Idempotency-Key is kept and reads have none", async () => {
  const f = fake([{ status: 201, body: team }]);
  await f.client().POST("/workspaceapi/teams", { body: { name: "X" }, params: { header: { "Idempotency-Key": "mine-1" } } });
  assert.equal(f.sent[0].headers.get("Idempotency-Key"), "mine-1");
  const g = fake([{ status: 200, body: '{"teams":[]}' }]);
  await g.client().GET("/workspaceapi/teams");
  assert.equal(g.sent[0].headers.get("Idempotency-Key"), null);
});

test("retries are bounded and errors are typed", async () => {
  const cases: [string, Reply, number | undefined, number][] = [
    ["503 every time", { status: 503, retryAfter: "1", body: '{"error":"service unavailable"}' }, undefined, DEFAULT_ATTEMPTS],
    ["429, one attempt allowed", { status: 429, retryAfter: "1", body: '{"error":"too many requests"}' }, 1, 1],
    ["Retry-After longer than the bound", { status: 503, retryAfter: "120", body: '{"error":"unavailable"}' }, undefined, 1],
    ["409 without Retry-After is final", { status: 409, body: '{"error":"a team with this name already exists"}' }, undefined, 1],
    ["400 is final", { status: 400, body: '{"error":"name is required"}' }, undefined, 1],
  ];
  for (const [name, reply, attempts, requests] of cases) {
    const f = fake([reply]);
    await assert.rejects(
      f.client({ attempts }).POST("/workspaceapi/teams", { body: { name: "X" } }),
      (e: unknown) => e instanceof ApiError && e.status === reply.status && e.message === JSON.parse(reply.body).error,
      name,
    );
    assert.equal(f.sent.length, requests, name);
  }
});

test("all() follows nextCursor to the last page", async () => {
  const pages: Record<string, { items: number[]; next: string | null }> = {
    first: { items: [1, 2], next: "B" },
    B: { items: [3], next: "C" },
    C: { items: [], next: null },
  };
  const seen: (string | undefined)[] = [];
  const got: number[] = [];
  for await (const n of all(async (cursor) => {
    seen.push(cursor);
    return pages[cursor ?? "first"];
  })) {
    got.push(n);
  }
  assert.deepEqual(got, [1, 2, 3]);
  assert.deepEqual(seen, [undefined, "B", "C"]);
});
