export { createRealDatabase, createSharedDatabase, realServerUrl, type TestDatabase } from "@fidelis/db/testing"
