/**
 * Serves one PGlite data directory over the wire protocol so the Fidelis server, the bare baseline
 * and the seeder can share it during a benchmark (the embedded database is otherwise owned by one
 * process). Prints `listening <port>` and runs until killed.
 */
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"

const dataDir = process.argv[2]
if (!dataDir) throw new Error("usage: pglite-host.ts <data dir>")
const db = await PGlite.create(dataDir)
const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 64 })
await server.start()
process.stdout.write(`listening ${server.getServerConn().split(":")[1]}\n`)
const stop = async () => {
  await server.stop()
  await db.close()
  process.exit(0)
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
