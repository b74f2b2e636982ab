/// The keys this library models, per object. Anything else is kept in `unknownKeys`.
enum ConfigurationKeys {
    static let file: Set<String> = [
        "version", "identifier", "products", "nonRenewingSubscriptions", "subscriptionGroups", "settings",
        "appPolicies", "subscriptionOffersKeyPair",
    ]
    static let version: Set<String> = ["major", "minor"]
    static let product: Set<String> = [
        "type", "productID", "referenceName", "displayPrice", "familyShareable", "internalID", "localizations",
    ]
    static let localization: Set<String> = ["locale", "displayName", "description"]
    static let group: Set<String> = ["id", "name", "localizations", "subscriptions"]
    static let subscription: Set<String> = product.union([
        "subscriptionGroupID", "groupNumber", "recurringSubscriptionPeriod", "introductoryOffer", "introductoryOffers",
        "adHocOffers", "codeOffers", "winbackOffers", "billingPlans",
    ])
    static let offer: Set<String> = [
        "internalID", "paymentMode", "subscriptionPeriod", "numberOfPeriods", "displayPrice", "offerID",
        "referenceName", "eligibility", "isStackable", "isEligible", "billingPlanType",
    ]
    static let billingPlan: Set<String> = [
        "billingPlanType", "displayPrice", "commitmentDisplayPrice", "internalID", "isEnabled",
    ]
    static let settings: Set<String> = [
        "_storefront", "_locale", "_timeRate", "_compatibilityTimeRate", "_askToBuyEnabled", "_billingIssuesEnabled",
        "_renewalBillingIssuesEnabled", "_billingGracePeriodEnabled", "_disableDialogs", "_failTransactionsEnabled",
        "_storeKitError", "_storeKitErrors", "_applicationInternalID", "_developerTeamID", "_lastSynchronizedDate",
        "_shouldSetupSyncOnLoad",
    ]
    static let simulatedError: Set<String> = ["name", "enabled", "current"]
    static let choice: Set<String> = ["index", "type"]
    static let appPolicies: Set<String> = ["eula", "policies"]
    static let policy: Set<String> = ["locale", "policyText", "policyURL"]
    static let signingKey: Set<String> = ["id", "privateKey"]
}
