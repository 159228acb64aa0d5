/** Spec 4.2: the company API's 25 operations, tool name and REST route, in the spec's order. */
export const SPEC_OPERATIONS = [
  { tool: "list_clients", method: "get", path: "/clients" },
  { tool: "get_client", method: "get", path: "/clients/{client_id}" },
  { tool: "create_client", method: "post", path: "/clients" },
  { tool: "get_client_behavior", method: "get", path: "/clients/{client_id}/behavior" },
  { tool: "get_client_timeline", method: "get", path: "/clients/{client_id}/timeline" },
  { tool: "get_referral_performance", method: "get", path: "/referral-performance" },
  { tool: "get_points_balance", method: "get", path: "/points/{client_id}" },
  { tool: "credit_points", method: "post", path: "/points/credit" },
  { tool: "generate_coupon", method: "post", path: "/coupons/generate" },
  { tool: "get_coupon", method: "get", path: "/coupons/{uid}" },
  { tool: "use_coupon", method: "patch", path: "/coupons/{uid}/use" },
  { tool: "stamp_loyalty_card", method: "post", path: "/loyalty-cards/{card_id}/stamp" },
  { tool: "list_products", method: "get", path: "/products" },
  { tool: "create_product", method: "post", path: "/products" },
  { tool: "update_product", method: "put", path: "/products/{product_id}" },
  { tool: "list_rewards", method: "get", path: "/rewards" },
  { tool: "list_loyalty_cards", method: "get", path: "/loyalty-cards" },
  { tool: "get_metrics_overview", method: "get", path: "/metrics/overview" },
  { tool: "list_loyalty_card_programs", method: "get", path: "/loyalty-cards/programs" },
  { tool: "get_loyalty_card_metrics", method: "get", path: "/loyalty-cards/metrics" },
  { tool: "list_referral_campaigns", method: "get", path: "/referrals/campaigns" },
  { tool: "get_referral_metrics", method: "get", path: "/referrals/metrics" },
  { tool: "list_quests", method: "get", path: "/quests" },
  { tool: "get_quest_metrics", method: "get", path: "/quests/metrics" },
  { tool: "get_nfce_metrics", method: "get", path: "/nfce/metrics" }
] as const

/** The spec operations written so far: all of them. */
export const WRITTEN_OPERATIONS = SPEC_OPERATIONS

/** The company tools the MCP catalog must list: exactly the spec's 25, sorted. */
export const COMPANY_TOOLS: ReadonlyArray<string> = WRITTEN_OPERATIONS.map((op) => op.tool).toSorted()
