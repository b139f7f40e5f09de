import { beforeAll, describe, expect, it } from "vitest";
import { call, uniqueName } from "@/testing/client";
import { seedDevice } from "@/testing/seeds/devices";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";

const owner = (namespace: SeededNamespace) => ({ token: namespace.owner.tenantToken });
const tagsOfDevice = async (namespace: SeededNamespace, uid: string) =>
  (await call("GET", `/api/devices/${uid}`, owner(namespace))).body.tags as string[];
const namespaceTags = async (namespace: SeededNamespace, query = "per_page=100") =>
  call("GET", `/api/tags?${query}`, owner(namespace));
const tagPath = (uid: string, tag: string) => `/api/devices/${uid}/tags/${encodeURIComponent(tag)}`;

describe("tags on a device", () => {
  let namespace: SeededNamespace;
  let other: SeededNamespace;

  beforeAll(async () => {
    [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
  });

  const add = (ns: SeededNamespace, uid: string, tag: unknown) =>
    call("POST", `/api/devices/${uid}/tags`, { ...owner(ns), body: { tag } });
  const replace = (ns: SeededNamespace, uid: string, tags: unknown) =>
    call("PUT", `/api/devices/${uid}/tags`, { ...owner(ns), body: { tags } });

  it("adds tags one by one, in order, and answers the device", async () => {
    const device = await seedDevice(namespace);
    const first = await add(namespace, device.uid, "web");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ uid: device.uid, tags: ["web"] });
    expect((await add(namespace, device.uid, "eu-west")).body.tags).toEqual(["web", "eu-west"]);
    expect(await tagsOfDevice(namespace, device.uid)).toEqual(["web", "eu-west"]);
  });

  it("refuses a tag the device has (409)", async () => {
    const device = await seedDevice(namespace, { tags: ["web"] });
    const response = await add(namespace, device.uid, "web");
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ message: expect.stringContaining("web") });
    expect(await tagsOfDevice(namespace, device.uid)).toEqual(["web"]);
  });

  it("takes two Unicode spellings of one tag as one tag, stored composed (NFC)", async () => {
    const device = await seedDevice(namespace);
    expect((await add(namespace, device.uid, "cafe\u0301")).body.tags).toEqual(["caf\u00e9"]);
    expect((await add(namespace, device.uid, "caf\u00e9")).status).toBe(409);
    const removed = await call("DELETE", tagPath(device.uid, "cafe\u0301"), owner(namespace));
    expect(removed.status).toBe(200);
    expect(await tagsOfDevice(namespace, device.uid)).toEqual([]);
  });

  it("refuses a fourth tag (409), keeping the three", async () => {
    const device = await seedDevice(namespace, { tags: ["one", "two", "three"] });
    const response = await add(namespace, device.uid, "four");
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ message: expect.stringContaining("3") });
    expect(await tagsOfDevice(namespace, device.uid)).toEqual(["one", "two", "three"]);
  });

  it("lets at most 3 of 6 concurrent adds through", async () => {
    const device = await seedDevice(namespace);
    const tags = ["t-1", "t-2", "t-3", "t-4", "t-5", "t-6"];
    const responses = await Promise.all(tags.map((tag) => add(namespace, device.uid, tag)));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 200, 409, 409, 409]);
    const kept = await tagsOfDevice(namespace, device.uid);
    expect(kept).toHaveLength(3);
    expect(kept.sort()).toEqual(tags.filter((_tag, index) => responses[index]?.status === 200).sort());
  });

  it.each([
    ["3 characters", "abc"],
    ["255 characters", "t".repeat(255)],
    ["spaces, a percent sign and non-ASCII letters", "rack 50% – zürich"],
  ])("takes a tag of %s, and removes it through its encoded path", async (_label, tag) => {
    const device = await seedDevice(namespace);
    expect((await add(namespace, device.uid, tag)).status).toBe(200);
    expect(await tagsOfDevice(namespace, device.uid)).toEqual([tag]);
    const removed = await call("DELETE", tagPath(device.uid, tag), owner(namespace));
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.tags).toEqual([]);
  });

  it("replaces all tags with 1 to 3, repeated names counting once", async () => {
    const device = await seedDevice(namespace, { tags: ["old"] });
    const three = await replace(namespace, device.uid, ["a-1", "b-2", "c-3"]);
    expect(three.status).toBe(200);
    expect(three.body.tags).toEqual(["a-1", "b-2", "c-3"]);
    expect((await replace(namespace, device.uid, ["solo"])).body.tags).toEqual(["solo"]);
    expect((await replace(namespace, device.uid, ["twin", "twin", "end"])).body.tags).toEqual(["twin", "end"]);
    expect(await tagsOfDevice(namespace, device.uid)).toEqual(["twin", "end"]);
  });

  it("removes one tag, keeping the order of the others; removing it again answers 404", async () => {
    const device = await seedDevice(namespace, { tags: ["one", "two", "three"] });
    const response = await call("DELETE", tagPath(device.uid, "two"), owner(namespace));
    expect(response.status).toBe(200);
    expect(response.body.tags).toEqual(["one", "three"]);
    const again = await call("DELETE", tagPath(device.uid, "two"), owner(namespace));
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: expect.stringContaining("two") });
    expect(await tagsOfDevice(namespace, device.uid)).toEqual(["one", "three"]);
  });

  it.each([
    ["2 characters", "ab"],
    ["a colon", "a:bc"],
    ["an at sign", "a@bc"],
    ["an ampersand", "a&bc"],
    ["256 characters", "t".repeat(256)],
  ])("refuses a tag path of %s (400 naming tag)", async (_label, tag) => {
    const device = await seedDevice(namespace, { tags: ["keep"] });
    const response = await call("DELETE", tagPath(device.uid, tag), owner(namespace));
    expect(response.status).toBe(400);
    expect(response.body.fields).toEqual([{ field: "tag", message: expect.any(String) }]);
    expect(await tagsOfDevice(namespace, device.uid)).toEqual(["keep"]);
  });

  it("answers 404 on another tenant's device to add, replace and remove, which keeps its tags", async () => {
    const theirs = await seedDevice(other, { tags: ["theirs"] });
    const responses = [
      await add(namespace, theirs.uid, "mine"),
      await replace(namespace, theirs.uid, ["mine"]),
      await call("DELETE", tagPath(theirs.uid, "theirs"), owner(namespace)),
    ];
    expect(responses.map((response) => response.status)).toEqual([404, 404, 404]);
    for (const response of responses) expect(response.body).toEqual({ message: "device not found" });
    expect(await tagsOfDevice(other, theirs.uid)).toEqual(["theirs"]);
  });

  it("answers 404 for an unknown device", async () => {
    const uid = "0".repeat(64);
    expect((await add(namespace, uid, "tag")).status).toBe(404);
    expect((await replace(namespace, uid, ["tag"])).status).toBe(404);
    expect((await call("DELETE", tagPath(uid, "tag"), owner(namespace))).status).toBe(404);
  });
});

describe("namespace tags", () => {
  it("lists the distinct tags of the namespace's devices in name order, with X-Total-Count", async () => {
    const [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    await seedDevice(namespace, { tags: ["web", "emea"] });
    await seedDevice(namespace, { tags: ["dbs", "emea"] });
    await seedDevice(namespace);
    await seedDevice(other, { tags: ["secret-tag", "web"] });
    const response = await namespaceTags(namespace);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(["dbs", "emea", "web"]);
    expect(response.headers.get("x-total-count")).toBe("3");
  });

  it("pages through the tags", async () => {
    const namespace = await seedNamespace();
    await seedDevice(namespace, { tags: ["tag-c", "tag-a", "tag-e"] });
    await seedDevice(namespace, { tags: ["tag-b", "tag-d"] });
    const pages = await Promise.all([1, 2, 3, 4].map((page) => namespaceTags(namespace, `page=${page}&per_page=2`)));
    expect(pages.map((page) => page.body)).toEqual([["tag-a", "tag-b"], ["tag-c", "tag-d"], ["tag-e"], []]);
    expect(pages.map((page) => page.headers.get("x-total-count"))).toEqual(["5", "5", "5", "5"]);
  });

  it("answers an empty list for a namespace without tags", async () => {
    const response = await namespaceTags(await seedNamespace());
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
    expect(response.headers.get("x-total-count")).toBe("0");
  });

  it("renames a tag on every device of the namespace, in place, and nowhere else", async () => {
    const [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    const first = await seedDevice(namespace, { tags: ["a-tag", "old-name", "z-tag"] });
    const second = await seedDevice(namespace, { tags: ["old-name"] });
    const untouched = await seedDevice(namespace, { tags: ["a-tag"] });
    const theirs = await seedDevice(other, { tags: ["old-name"] });
    const response = await call("PUT", "/api/tags/old-name", { ...owner(namespace), body: { tag: "new-name" } });
    expect(response.status).toBe(200);
    expect(await tagsOfDevice(namespace, first.uid)).toEqual(["a-tag", "new-name", "z-tag"]);
    expect(await tagsOfDevice(namespace, second.uid)).toEqual(["new-name"]);
    expect(await tagsOfDevice(namespace, untouched.uid)).toEqual(["a-tag"]);
    expect((await namespaceTags(namespace)).body).toEqual(["a-tag", "new-name", "z-tag"]);
    expect(await tagsOfDevice(other, theirs.uid)).toEqual(["old-name"]);
  });

  it("refuses to rename onto a tag the namespace has (409), changing nothing", async () => {
    const namespace = await seedNamespace();
    const device = await seedDevice(namespace, { tags: ["first", "second"] });
    for (const target of ["second", "first"]) {
      const response = await call("PUT", "/api/tags/first", { ...owner(namespace), body: { tag: target } });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ message: expect.stringContaining(target) });
    }
    expect(await tagsOfDevice(namespace, device.uid)).toEqual(["first", "second"]);
  });

  it("answers 404 to rename or delete a tag the namespace does not have, even if another has it", async () => {
    const [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    const theirs = await seedDevice(other, { tags: ["their-tag"] });
    const renamed = await call("PUT", "/api/tags/their-tag", { ...owner(namespace), body: { tag: "mine" } });
    expect(renamed.status).toBe(404);
    const deleted = await call("DELETE", "/api/tags/their-tag", owner(namespace));
    expect(deleted.status).toBe(404);
    expect(deleted.body).toEqual({ message: expect.stringContaining("their-tag") });
    expect(await tagsOfDevice(other, theirs.uid)).toEqual(["their-tag"]);
  });

  it("deletes a tag from every device of the namespace and nowhere else", async () => {
    const [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    const first = await seedDevice(namespace, { tags: ["keep", "drop-me", "also"] });
    const second = await seedDevice(namespace, { tags: ["drop-me"] });
    const theirs = await seedDevice(other, { tags: ["drop-me"] });
    const response = await call("DELETE", "/api/tags/drop-me", owner(namespace));
    expect(response.status).toBe(200);
    expect(await tagsOfDevice(namespace, first.uid)).toEqual(["keep", "also"]);
    expect(await tagsOfDevice(namespace, second.uid)).toEqual([]);
    expect((await namespaceTags(namespace)).body).toEqual(["also", "keep"]);
    expect(await tagsOfDevice(other, theirs.uid)).toEqual(["drop-me"]);
    expect((await call("DELETE", "/api/tags/drop-me", owner(namespace))).status).toBe(404);
  });

  it("renames and deletes tags given with URL escapes", async () => {
    const namespace = await seedNamespace();
    const device = await seedDevice(namespace, { tags: ["rack 7%", "other"] });
    const path = `/api/tags/${encodeURIComponent("rack 7%")}`;
    const renamed = await call("PUT", path, { ...owner(namespace), body: { tag: "rack 8%" } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await tagsOfDevice(namespace, device.uid)).toEqual(["rack 8%", "other"]);
    const deleted = await call("DELETE", `/api/tags/${encodeURIComponent("rack 8%")}`, owner(namespace));
    expect(deleted.status).toBe(200);
    expect(await tagsOfDevice(namespace, device.uid)).toEqual(["other"]);
  });

  it.each([
    ["PUT", { tag: "fine-name" }],
    ["DELETE", undefined],
  ])("%s refuses a bad tag in the path (400 naming tag)", async (method, body) => {
    const namespace = await seedNamespace();
    for (const tag of ["ab", "a:bc", uniqueName("x").padEnd(256, "x")]) {
      const response = await call(method, `/api/tags/${encodeURIComponent(tag)}`, { ...owner(namespace), body });
      expect(response.status).toBe(400);
      expect(response.body.fields).toEqual([{ field: "tag", message: expect.any(String) }]);
    }
  });
});
