/// How a store behaves: the test-environment switches of a `.storekit` file and of `SKTestSession`.
public struct StoreSettings: Sendable, Hashable, Codable {
    /// The storefront new accounts buy in (ISO 3166-1 alpha-3).
    public var storefront: String
    /// The locale product names are shown in, e.g. `en_US`.
    public var locale: String
    /// The environment signed data claims: `Sandbox` (default), `Production` or `Xcode` (``signingEnvironments``).
    public var environment: String

    /// The environments a store can sign as.
    public static let signingEnvironments = ["Sandbox", "Production", "Xcode"]
    /// Ask to Buy: purchases wait for a parent's approval.
    public var askToBuyEnabled: Bool
    /// Interrupted purchases: purchases wait until the customer resolves a billing issue.
    public var interruptedPurchasesEnabled: Bool
    /// Every purchase fails with ``failureErrorCode``.
    public var failTransactionsEnabled: Bool
    /// The `SKError.Code` raw value failed purchases report (0, `unknown`, by default).
    public var failureErrorCode: Int
    /// Whether confirmation dialogs are suppressed (no effect on a headless store; kept for fidelity).
    public var disableDialogs: Bool
    /// How fast subscription time runs.
    public var timeRate: TimeRate
    /// Renewals fail and enter billing retry.
    public var renewalBillingIssuesEnabled: Bool
    /// Billing retry starts with a grace period.
    public var billingGracePeriodEnabled: Bool
    /// How many times a subscription may renew before it stops and expires (`expirationIntent` 5), as Apple's sandbox
    /// stops after 12; `nil`, the default, renews without end.
    public var renewalLimit: Int?
    /// Refund requests wait for a decision, as the App Store's review does: a customer's request (`beginRefundRequest`)
    /// is pending, the app's server hears `CONSUMPTION_REQUEST`, and a test refunds or declines it through the engine,
    /// the control API, `storekit tx refund-request` or the transaction manager. Off, the default, a request is decided
    /// at once: refunded, or declined when the customer's reason is `REJECT`.
    public var refundRequestsAwaitDecision: Bool

    /// Creates settings; every switch is off by default.
    public init(
        storefront: String = "USA", locale: String = "en_US", environment: String = "Sandbox",
        askToBuyEnabled: Bool = false, interruptedPurchasesEnabled: Bool = false,
        failTransactionsEnabled: Bool = false, failureErrorCode: Int = 0, disableDialogs: Bool = false,
        timeRate: TimeRate = .realTime, renewalBillingIssuesEnabled: Bool = false, billingGracePeriodEnabled: Bool = false,
        renewalLimit: Int? = nil, refundRequestsAwaitDecision: Bool = false
    ) {
        self.storefront = storefront
        self.locale = locale
        self.environment = environment
        self.askToBuyEnabled = askToBuyEnabled
        self.interruptedPurchasesEnabled = interruptedPurchasesEnabled
        self.failTransactionsEnabled = failTransactionsEnabled
        self.failureErrorCode = failureErrorCode
        self.disableDialogs = disableDialogs
        self.timeRate = timeRate
        self.renewalBillingIssuesEnabled = renewalBillingIssuesEnabled
        self.billingGracePeriodEnabled = billingGracePeriodEnabled
        self.renewalLimit = renewalLimit
        self.refundRequestsAwaitDecision = refundRequestsAwaitDecision
    }

    /// Reads settings, taking the default of every field the JSON leaves out: settings stored by an earlier version
    /// (a tenant's row of storage, ``StoredSettings``) still read after a field was added.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = StoreSettings()
        storefront = try container.decodeIfPresent(String.self, forKey: .storefront) ?? defaults.storefront
        locale = try container.decodeIfPresent(String.self, forKey: .locale) ?? defaults.locale
        environment = try container.decodeIfPresent(String.self, forKey: .environment) ?? defaults.environment
        askToBuyEnabled = try container.decodeIfPresent(Bool.self, forKey: .askToBuyEnabled) ?? defaults.askToBuyEnabled
        interruptedPurchasesEnabled = try container.decodeIfPresent(Bool.self, forKey: .interruptedPurchasesEnabled) ?? defaults.interruptedPurchasesEnabled
        failTransactionsEnabled = try container.decodeIfPresent(Bool.self, forKey: .failTransactionsEnabled) ?? defaults.failTransactionsEnabled
        failureErrorCode = try container.decodeIfPresent(Int.self, forKey: .failureErrorCode) ?? defaults.failureErrorCode
        disableDialogs = try container.decodeIfPresent(Bool.self, forKey: .disableDialogs) ?? defaults.disableDialogs
        timeRate = try container.decodeIfPresent(TimeRate.self, forKey: .timeRate) ?? defaults.timeRate
        renewalBillingIssuesEnabled = try container.decodeIfPresent(Bool.self, forKey: .renewalBillingIssuesEnabled) ?? defaults.renewalBillingIssuesEnabled
        billingGracePeriodEnabled = try container.decodeIfPresent(Bool.self, forKey: .billingGracePeriodEnabled) ?? defaults.billingGracePeriodEnabled
        renewalLimit = try container.decodeIfPresent(Int.self, forKey: .renewalLimit)
        refundRequestsAwaitDecision = try container.decodeIfPresent(Bool.self, forKey: .refundRequestsAwaitDecision)
            ?? defaults.refundRequestsAwaitDecision
    }
}
