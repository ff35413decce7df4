import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveHome } from "./home.js";

test("an empty or blank DEER_FLOW_HOME counts as unset: the home is ./.deer-flow, not the working directory", () => {
  for (const value of ["", "   ", undefined]) {
    assert.equal(
      resolveHome({ env: { DEER_FLOW_HOME: value }, cwd: "/work" }),
      "/work/.deer-flow",
      JSON.stringify(value),
    );
  }
  assert.equal(resolveHome({ env: { DEER_FLOW_HOME: "data" }, cwd: "/work" }), "/work/data");
  assert.equal(resolveHome({ home: "", env: { DEER_FLOW_HOME: "/srv/df" }, cwd: "/work" }), "/srv/df");
});
