import { Layer } from "effect"
import { CnpjClaims } from "./claims.js"
import { Nfce } from "./service.js"
import { NfceProofs } from "./store-proofs.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Nfce.Default, NfceProofs.Default, CnpjClaims.Default)
