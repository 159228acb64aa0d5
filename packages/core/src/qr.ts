import { Effect } from "effect"

/**
 * `text` as a QR code in SVG, as the file body a route answers (the `qrcode` package; no hand-written
 * encoder). Error correction M survives a scuffed phone screen or a printed counter card.
 */
export const qrSvg = (text: string) =>
  Effect.promise(async () => {
    // Loaded on the first code drawn: the CLI and a server start do not need it (docs/decisions.md, "CLI start-up").
    const { default: QRCode } = await import("qrcode")
    return QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2 })
  }).pipe(Effect.map((svg) => ({ content_type: "image/svg+xml", body_base64: Buffer.from(svg).toString("base64") })))
