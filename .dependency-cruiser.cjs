// The architecture as rules (issue 29, decision 043): routes → areas → storage/utils/jobs, never back,
// and no import cycle anywhere in app/ or server/. `npm run lint` runs it; tests/unit/architecture.test.ts
// shows a broken import failing it.
const AREAS = "(capture|forms|leads|support|webhooks|notifications|staff|audit|brand|retention|privacy|people)";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment:
        "A cycle ties modules so that neither can change, load or be tested alone: move a type or a function down.",
      severity: "error",
      from: { path: "^(app|server)/" },
      to: { circular: true },
    },
    {
      name: "foundation-imports-no-area",
      comment:
        "storage, utils and jobs sit under every area: they take what they need as arguments and row types of their own.",
      severity: "error",
      from: { path: "^app/(storage|utils|jobs)/" },
      to: { path: `^app/${AREAS}/` },
    },
    {
      name: "nothing-below-routes-imports-a-route",
      comment:
        "Routes sit above every area and component: a type a route and a component share lives in the component or the area.",
      severity: "error",
      from: { path: "^app/", pathNot: "^app/(routes/|root\\.tsx$)" },
      to: { path: "^app/(routes/|root\\.tsx$)" },
    },
    {
      name: "app-imports-no-server",
      comment: "server/ starts the app (HTTP, sockets, the build): the app knows nothing of it.",
      severity: "error",
      from: { path: "^app/" },
      to: { path: "^server/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^app/generated/" },
    tsConfig: { fileName: "tsconfig.json" },
    // Type-only imports tie modules too: a cycle through a type is still a cycle.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".jsx", ".d.ts"],
    },
  },
};
