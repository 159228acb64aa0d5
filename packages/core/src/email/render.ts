/**
 * The messages' text, in Portuguese (the empresas are Brazilian): a plain-text part and a simple
 * HTML part of the same content. Pure functions of the facts and the signed links; the outbox
 * service gathers both at send time.
 */

export interface Rendered {
  readonly subject: string
  readonly text: string
  readonly html: string
}

/** Every message carries these: the open pixel and the unsubscribe link (also its List-Unsubscribe header). */
export interface CommonLinks {
  readonly pixel: string
  readonly unsubscribe: string
}

export interface AlertFacts {
  readonly empresaName: string
  readonly questName: string
  /** When the response was given, local to the empresa: `DD/MM/YYYY HH:MM`. */
  readonly answeredAt: string
  readonly timezone: string
  readonly csat: number | null
  readonly nps: number | null
  /** Each answered question, in the survey's order. */
  readonly answers: ReadonlyArray<{ readonly label: string; readonly value: string }>
  readonly contact: { readonly name: string | null; readonly phone: string | null }
}

export interface AlertLinks extends CommonLinks {
  /** The survey page, tracked. */
  readonly survey: string
  /** A WhatsApp chat with the respondent, tracked; only for a mobile number. */
  readonly whatsapp?: string | undefined
}

/** Text made safe inside HTML content and quoted attributes (emails, the survey page). */
export const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c as "&" | "<" | ">" | '"' | "'"]
  )

/**
 * Text with every run of control characters (C0 with CR and LF, DEL, C1) and of Unicode line and
 * paragraph separators folded into one space: a value someone else wrote (a name, a survey
 * comment) can never start a line of its own ("Clique: http://…") in the message it is put in.
 */
const foldControls = (text: string) => text.replace(/[\p{Cc}\u2028\u2029]+/gu, " ")

/** Brazilian area code and number, without the country code 55 when present. */
const nationalOf = (digits: string) => (digits.length >= 12 && digits.startsWith("55") ? digits.slice(2) : digits)

/** `(11) 98765-4321` or `(11) 3456-7890`; anything else as stored. */
export const formatPhone = (digits: string) => {
  const national = nationalOf(digits)
  const match = /^(\d{2})(\d{4,5})(\d{4})$/.exec(national)
  return match === null ? digits : `(${match[1]}) ${match[2]}-${match[3]}`
}

/** A WhatsApp link for a mobile number (area code, then 9 and eight digits); landlines have none. */
export const whatsappUrl = (digits: string) => {
  const national = nationalOf(digits)
  return /^\d{2}9\d{8}$/.test(national) ? `https://wa.me/55${national}` : undefined
}

const scoresOf = (facts: AlertFacts) =>
  [
    ...(facts.csat === null ? [] : [`CSAT ${facts.csat}/5`]),
    ...(facts.nps === null ? [] : [`NPS ${facts.nps}/10`])
  ].join(", ")

/** The footer link every message carries, which the page of an expired unsubscribe link points to. */
const OPT_OUT_LABEL = "Não quero mais receber estes e-mails"

const yearsText = (years: number) => (years === 1 ? "um ano" : `${years} anos`)

const paragraph = (content: string, style = "") => `<p style="margin:0 0 12px;${style}">${content}</p>`

interface Section {
  readonly title?: string
  readonly lines: ReadonlyArray<readonly [label: string, value: string]>
  /** Text after the lines. */
  readonly note?: string
  readonly link?: { readonly label: string; readonly url: string }
}

/** The shared frame: intro, sections, then the footer with the reason and the opt-out. */
const layout = (options: {
  readonly subject: string
  readonly intro: ReadonlyArray<string>
  readonly sections: ReadonlyArray<Section>
  readonly reason: string
  /** Tracking and opt-out; none for an account's own messages (verification, password reset). */
  readonly links?: CommonLinks | undefined
}): Rendered => {
  // Every piece, not only the values known to be users': whatever a template interpolates is folded.
  const subject = foldControls(options.subject)
  const intro = options.intro.map(foldControls)
  const reason = foldControls(options.reason)
  const sections = options.sections.map((section): Section => ({
    lines: section.lines.map(([label, value]) => [foldControls(label), foldControls(value)] as const),
    ...(section.title === undefined ? {} : { title: foldControls(section.title) }),
    ...(section.note === undefined ? {} : { note: foldControls(section.note) }),
    ...(section.link === undefined ? {} : { link: { label: foldControls(section.link.label), url: section.link.url } })
  }))
  const { links } = options
  const text = [
    ...intro.flatMap((line) => [line, ""]),
    ...sections.flatMap((section) => [
      ...(section.title === undefined ? [] : [`${section.title}:`]),
      ...section.lines.map(([label, value]) => `- ${label}: ${value}`),
      ...(section.note === undefined ? [] : [section.note]),
      ...(section.link === undefined ? [] : [`${section.link.label}: ${section.link.url}`]),
      ""
    ]),
    "--",
    reason,
    ...(links === undefined ? [] : [`Para não receber mais: ${links.unsubscribe}`]),
    ""
  ].join("\n")

  const html = [
    "<!doctype html>",
    '<html lang="pt-BR"><head><meta charset="utf-8">',
    `<title>${escapeHtml(subject)}</title></head>`,
    '<body style="margin:0;padding:24px;background:#f4f4f5;font-family:Arial,Helvetica,sans-serif;color:#18181b">',
    '<div style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px">',
    ...intro.map((line) => paragraph(escapeHtml(line))),
    ...sections.flatMap((section) => [
      ...(section.title === undefined
        ? []
        : [`<h2 style="font-size:16px;margin:20px 0 8px">${escapeHtml(section.title)}</h2>`]),
      ...(section.lines.length === 0
        ? []
        : [
            '<ul style="margin:0 0 12px;padding-left:20px">',
            ...section.lines.map(
              ([label, value]) =>
                `<li style="margin:0 0 6px">${escapeHtml(label)}: <strong>${escapeHtml(value)}</strong></li>`
            ),
            "</ul>"
          ]),
      ...(section.note === undefined ? [] : [paragraph(escapeHtml(section.note))]),
      ...(section.link === undefined
        ? []
        : [
            paragraph(
              `<a href="${escapeHtml(section.link.url)}" style="color:#2563eb">${escapeHtml(section.link.label)}</a>`
            )
          ])
    ]),
    '<hr style="border:0;border-top:1px solid #e4e4e7;margin:20px 0">',
    paragraph(escapeHtml(reason), "font-size:12px;color:#71717a"),
    ...(links === undefined
      ? ["</div>"]
      : [
          paragraph(
            `<a href="${escapeHtml(links.unsubscribe)}" style="color:#71717a">${OPT_OUT_LABEL}</a>`,
            "font-size:12px"
          ),
          "</div>",
          `<img src="${escapeHtml(links.pixel)}" width="1" height="1" alt="" style="border:0;width:1px;height:1px">`
        ]),
    "</body></html>",
    ""
  ].join("\n")
  return { subject, text, html }
}

/** The low-score alert: scores, every answer, the contact when the respondent left one. */
export const lowScoreAlert = (facts: AlertFacts, links: AlertLinks): Rendered => {
  const scores = scoresOf(facts)
  const { name, phone } = facts.contact
  const contactLines: Array<readonly [string, string]> = [
    ...(name === null ? [] : [["Nome", name] as const]),
    ...(phone === null ? [] : [["Telefone", formatPhone(phone)] as const])
  ]
  return layout({
    subject: `Nota baixa em "${facts.questName}"${scores === "" ? "" : `: ${scores}`}`,
    intro: [
      `Um cliente deu uma nota baixa na pesquisa "${facts.questName}" de ${facts.empresaName}.`,
      `Respondida em ${facts.answeredAt} (horário de ${facts.timezone}).`
    ],
    sections: [
      { title: "Respostas", lines: facts.answers.map(({ label, value }) => [label, value] as const) },
      {
        title: "Contato",
        lines: contactLines,
        ...(contactLines.length === 0 ? { note: "O cliente não deixou contato." } : {}),
        ...(links.whatsapp === undefined ? {} : { link: { label: "Conversar no WhatsApp", url: links.whatsapp } })
      },
      { lines: [], link: { label: "Ver a pesquisa", url: links.survey } }
    ],
    reason:
      "Você recebe este alerta porque este endereço está cadastrado para os alertas de notas baixas de " +
      `${facts.empresaName}.`,
    links
  })
}

/** A test message: proves the configured transport and address work, with the same links as an alert. */
export const testMessage = (facts: { readonly empresaName: string }, links: CommonLinks & { survey: string }) =>
  layout({
    subject: `Teste de e-mail do Fidelis para ${facts.empresaName}`,
    intro: [
      `Este é um e-mail de teste de ${facts.empresaName}.`,
      "Se ele chegou, os alertas de notas baixas das pesquisas chegarão a este endereço."
    ],
    sections: [{ lines: [], link: { label: "Ver a pesquisa", url: links.survey } }],
    reason: `Você recebe este e-mail porque este endereço está cadastrado para os alertas de ${facts.empresaName}.`,
    links
  })

/** A promoter's referral link, sent to the client's own verified address after a survey. */
export const referralInvite = (
  facts: { readonly empresaName: string; readonly nome: string; readonly code: string },
  links: CommonLinks & { referral: string }
) =>
  layout({
    subject: `Indique ${facts.empresaName} para seus amigos`,
    intro: [
      `Olá, ${facts.nome}!`,
      `Obrigado pela ótima avaliação de ${facts.empresaName}. Indique a loja para seus amigos com o seu link ` +
        `(ou o código ${facts.code}).`
    ],
    sections: [{ lines: [], link: { label: "Meu link de indicação", url: links.referral } }],
    reason:
      `Você recebe este e-mail porque uma resposta à pesquisa de ${facts.empresaName} deixou o telefone do seu ` +
      "cadastro. Se não foi você, ignore este e-mail.",
    links
  })

/** What an account message links to: the page that finishes it, and the token for an app to post itself. */
export interface AccountLink {
  /** The account holder's name, only for an address proven theirs: null greets no one by name. */
  readonly nome: string | null
  readonly url: string
  readonly token: string
  readonly validHours: number
}

const greeting = (link: AccountLink) => (link.nome === null ? "Olá!" : `Olá, ${link.nome}!`)

const tokenNote = (link: AccountLink) =>
  `O link vale por ${link.validHours} horas e só pode ser usado uma vez. Código para o aplicativo: ${link.token}`

/** `a`, `a e b`, `a, b e c`, `a, b, c e mais 2 lojas`. */
const storeList = (names: ReadonlyArray<string>) => {
  const shown = names.slice(0, 3)
  const rest = names.length - shown.length
  const items = rest > 0 ? [...shown, `mais ${rest} ${rest === 1 ? "loja" : "lojas"}`] : shown
  return items.length === 1 ? items[0]! : `${items.slice(0, -1).join(", ")} e ${items.at(-1)}`
}

/**
 * The link that verifies an account's email (and shows its stores' points), and the way in for the
 * address's owner when someone else registered it: a claim link, a password reset that ends every
 * session (docs/decisions.md "Access tokens die with their session"). `stores`: the stores that
 * already keep points for this address, said plainly, since confirming hands them to the account.
 */
export const verifyEmailMessage = (link: AccountLink, claim: AccountLink, stores: ReadonlyArray<string>): Rendered =>
  layout({
    subject: "Confirme seu e-mail no Fidelis",
    intro: [
      greeting(link),
      "Uma conta do Fidelis foi criada com este endereço. Se foi você, confirme este e-mail para ver seus pontos " +
        "em todas as lojas; depois, entre de novo no aplicativo.",
      ...(stores.length === 0
        ? []
        : [
            `Este endereço já tem pontos em ${storeList(stores)}. Ao confirmar, eles passam para esta conta e para ` +
              "quem souber a senha dela."
          ])
    ],
    sections: [
      { lines: [], note: tokenNote(link), link: { label: "Confirmar e-mail", url: link.url } },
      {
        title: "Não foi você?",
        lines: [],
        note:
          "Não confirme. Recupere a conta escolhendo uma senha sua: todas as sessões abertas nela terminam na hora. " +
          `O link vale por ${claim.validHours} horas. Código de recuperação para o aplicativo: ${claim.token}`,
        link: { label: "Não fui eu: recuperar a conta", url: claim.url }
      }
    ],
    reason: "Você recebe este e-mail porque uma conta do Fidelis foi criada com este endereço."
  })

/** The link that sets a new password; every session ends when it is used. */
export const resetPasswordMessage = (link: AccountLink): Rendered =>
  layout({
    subject: "Redefinição de senha do Fidelis",
    intro: [greeting(link), "Recebemos um pedido para redefinir a senha da sua conta."],
    sections: [{ lines: [], note: tokenNote(link), link: { label: "Escolher uma nova senha", url: link.url } }],
    reason: "Se não foi você, ignore este e-mail: sua senha continua a mesma."
  })

/** `m***@padaria.com.br`: enough to recognise one's own address, not enough to harvest it. */
export const maskAddress = (address: string) => {
  const at = address.lastIndexOf("@")
  return at <= 0 ? "***" : `${address[0]}***${address.slice(at)}`
}

/** A page the email routes answer: one message, small enough to need no stylesheet of its own. */
const standalonePage = (title: string, body: ReadonlyArray<string>) =>
  [
    "<!doctype html>",
    '<html lang="pt-BR"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title>`,
    "<style>body{font-family:Arial,Helvetica,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#18181b}",
    "button{font-size:1rem;padding:.6rem 1.2rem;border-radius:6px;border:1px solid #18181b;",
    "background:#18181b;color:#fff}",
    "button:focus{outline:3px solid #2563eb;outline-offset:2px}</style>",
    "</head><body><main>",
    ...body,
    "</main></body></html>",
    ""
  ].join("\n")

/**
 * The unsubscribe page. Asking needs a click on its button (a POST of `List-Unsubscribe=One-Click`
 * to the same URL, what RFC 8058 providers send), since link scanners fetch every GET.
 */
export const unsubscribePage = (facts: {
  readonly empresaName: string
  readonly address: string
  readonly state: "ask" | "done"
}) => {
  const who = `${escapeHtml(maskAddress(facts.address))}`
  const from = escapeHtml(facts.empresaName)
  const body =
    facts.state === "ask"
      ? [
          "<h1>Cancelar o recebimento</h1>",
          `<p>Deixar de enviar a <strong>${who}</strong> os e-mails de ${from}?</p>`,
          '<form method="post">',
          '<input type="hidden" name="List-Unsubscribe" value="One-Click">',
          '<button type="submit">Não quero mais receber</button>',
          "</form>"
        ]
      : ["<h1>Pronto</h1>", `<p><strong>${who}</strong> não receberá mais os e-mails de ${from}.</p>`]
  return standalonePage(`Cancelar e-mails de ${from}`, body)
}

/**
 * The page of a link past its lifetime (`LINK_LIFETIME_DAYS`): nothing was changed, and, for an
 * unsubscribe link, the ways out that still work: a newer message's own link, or the mail program's
 * unsubscribe button, which uses it. It names no address: whoever holds an old link learns nothing.
 */
export const expiredLinkPage = (facts: {
  readonly empresaName: string
  readonly kind: "click" | "unsubscribe"
  readonly lifetimeDays: number
}) => {
  const from = escapeHtml(facts.empresaName)
  const lifetime = facts.lifetimeDays % 365 === 0 ? yearsText(facts.lifetimeDays / 365) : `${facts.lifetimeDays} dias`
  const body =
    facts.kind === "unsubscribe"
      ? [
          "<h1>Este link expirou</h1>",
          `<p>Os links para cancelar os e-mails de ${from} valem ${lifetime}, e este já passou disso. ` +
            "Nada foi alterado.</p>",
          "<p>Para não receber mais:</p>",
          "<ul>",
          `<li>abra um e-mail mais recente de ${from} e use o link “${OPT_OUT_LABEL}” no fim dele ` +
            "(todo e-mail traz o seu); ou</li>",
          "<li>use a opção “Cancelar inscrição” que o seu programa de e-mail mostra ao lado do remetente " +
            "de uma mensagem recente; ou</li>",
          `<li>peça diretamente a ${from} que deixe de enviar e-mails ao seu endereço.</li>`,
          "</ul>"
        ]
      : [
          "<h1>Este link expirou</h1>",
          `<p>Os links dos e-mails de ${from} valem ${lifetime}, e este já passou disso.</p>`,
          `<p>Abra um e-mail mais recente de ${from} ou fale diretamente com ${from}.</p>`
        ]
  return standalonePage("Link expirado", body)
}
