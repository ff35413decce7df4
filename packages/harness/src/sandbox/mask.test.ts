import { test } from "node:test";
import assert from "node:assert/strict";
import { maskHostPaths } from "./mask.js";

test("host prefixes become virtual ones, longest first, only at path boundaries", () => {
  const mapping: Array<[string, string]> = [
    ["/srv/h/threads/t1/user-data", "/mnt/user-data"],
    ["/srv/h/skills", "/mnt/skills"],
  ];
  assert.equal(
    maskHostPaths("cat: /srv/h/threads/t1/user-data/outputs/x: No such file\n/srv/h/skills/a /srv/h/skillsX", mapping),
    "cat: /mnt/user-data/outputs/x: No such file\n/mnt/skills/a /srv/h/skillsX",
  );
  assert.equal(
    maskHostPaths("/srv/h/threads/t10/user-data", [["/srv/h/threads/t1", "/v"]]),
    "/srv/h/threads/t10/user-data",
  );
  assert.equal(maskHostPaths("nothing here", mapping), "nothing here");
});
