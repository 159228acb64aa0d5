// Every migration, by file name. Adding one is a new file and its line here (the db package's
// migrations test checks that both agree). Listed rather than read from the folder at run time so
// that a bundle (the server's, the CLI's) carries them: loaded by import() from the folder, the
// CLI's code-cached script could not import them (docs/decisions.md, "CLI start-up").
export const MIGRATIONS = {
  "0001_foundation": () => import("./0001_foundation.js"),
  "0002_catalog": () => import("./0002_catalog.js"),
  "0003_coupons": () => import("./0003_coupons.js"),
  "0004_loyalty": () => import("./0004_loyalty.js"),
  "0005_referrals": () => import("./0005_referrals.js"),
  "0006_quests": () => import("./0006_quests.js"),
  "0007_client_search": () => import("./0007_client_search.js"),
  "0008_activity_facts": () => import("./0008_activity_facts.js"),
  "0009_business_metrics": () => import("./0009_business_metrics.js"),
  "0010_engagement_metrics": () => import("./0010_engagement_metrics.js"),
  "0011_client_activity": () => import("./0011_client_activity.js"),
  "0012_survey_responses": () => import("./0012_survey_responses.js"),
  "0013_email": () => import("./0013_email.js"),
  "0014_accounts": () => import("./0014_accounts.js"),
  "0015_stores": () => import("./0015_stores.js"),
  "0016_team": () => import("./0016_team.js"),
  "0017_redemptions": () => import("./0017_redemptions.js"),
  "0018_nfce": () => import("./0018_nfce.js"),
  "0019_hourly_rollups": () => import("./0019_hourly_rollups.js"),
  "0020_client_stamp_totals": () => import("./0020_client_stamp_totals.js"),
  "0021_client_totals": () => import("./0021_client_totals.js"),
  "0022_loyalty_cardholders": () => import("./0022_loyalty_cardholders.js"),
  "0023_referred_users_index": () => import("./0023_referred_users_index.js"),
  "0024_nfce_pending": () => import("./0024_nfce_pending.js"),
  "0025_sessions": () => import("./0025_sessions.js"),
  "0026_account_mail_limit": () => import("./0026_account_mail_limit.js"),
  "0028_account_link_companions": () => import("./0028_account_link_companions.js"),
  "0029_bounded_balances": () => import("./0029_bounded_balances.js"),
  "0032_cnpj_claims": () => import("./0032_cnpj_claims.js"),
  "0033_citus_keys": () => import("./0033_citus_keys.js")
}
