// Members Apple deprecated but still ships: iOS code that uses them compiles with `import OpenStoreKit` unchanged.
// The deprecations are Apple's, by platform; Linux has none, so they warn only where Apple's would.

extension Transaction {
    /// The offer's identifier: ``offer``'s `id`.
    @available(iOS, deprecated: 17.2, message: "Use offer") @available(macOS, deprecated: 14.2, message: "Use offer")
    public var offerID: String? { offer?.id }
    /// The offer's type: ``offer``'s `type`.
    @available(iOS, deprecated: 17.2, message: "Use offer") @available(macOS, deprecated: 14.2, message: "Use offer")
    public var offerType: Transaction.OfferType? { offer?.type }
    /// The offer's payment mode as the App Store writes it (`FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`).
    @available(iOS, deprecated: 17.2, message: "Use offer") @available(macOS, deprecated: 14.2, message: "Use offer")
    public var offerPaymentModeStringRepresentation: String? { offer?.paymentMode?.rawValue }
    /// The offer's period in ISO 8601 (`P1M`).
    @available(iOS, deprecated: 18.4, message: "Use offer.period") @available(macOS, deprecated: 15.4, message: "Use offer.period")
    public var offerPeriodStringRepresentation: String? { offer?.period?.iso8601 }
    /// The ISO 4217 code of ``price``'s currency.
    @available(iOS, deprecated: 16.0, message: "Use currency") @available(macOS, deprecated: 13.0, message: "Use currency")
    public var currencyCode: String? { currency?.identifier }
    /// The environment's name: `Sandbox`, `Production` or `Xcode`.
    @available(iOS, deprecated: 16.0, message: "Use environment") @available(macOS, deprecated: 13.0, message: "Use environment")
    public var environmentStringRepresentation: String { environment.rawValue }
    /// The reason's name: `PURCHASE` or `RENEWAL`.
    @available(iOS, deprecated: 17.0, message: "Use reason") @available(macOS, deprecated: 14.0, message: "Use reason")
    public var reasonStringRepresentation: String { reason.rawValue }
    /// The storefront's three-letter country code.
    @available(iOS, deprecated: 17.0, message: "Use storefront") @available(macOS, deprecated: 14.0, message: "Use storefront")
    public var storefrontCountryCode: String { storefront.countryCode }
    /// How the transaction was revoked, by the App Store's name (`REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`):
    /// ``revocationType``'s raw value, `nil` for a transaction that was not revoked.
    @available(iOS, deprecated: 26.4, message: "Use revocationType") @available(macOS, deprecated: 26.4, message: "Use revocationType")
    public var revocationTypeStringRepresentation: String? { revocationType?.rawValue }
}

extension Product.SubscriptionInfo.RenewalInfo {
    /// The identifier of the offer the next renewal takes: ``offer``'s `id`.
    @available(iOS, deprecated: 18.0, message: "Use offer") @available(macOS, deprecated: 15.0, message: "Use offer")
    public var offerID: String? { offer?.id }
    /// The type of the offer the next renewal takes: ``offer``'s `type`.
    @available(iOS, deprecated: 18.0, message: "Use offer") @available(macOS, deprecated: 15.0, message: "Use offer")
    public var offerType: Transaction.OfferType? { offer?.type }
    /// The payment mode of the offer the next renewal takes, as the App Store writes it.
    @available(iOS, deprecated: 18.0, message: "Use offer") @available(macOS, deprecated: 15.0, message: "Use offer")
    public var offerPaymentModeStringRepresentation: String? { offer?.paymentMode?.rawValue }
    /// The period of the offer the next renewal takes, in ISO 8601.
    @available(iOS, deprecated: 18.4, message: "Use offer.period") @available(macOS, deprecated: 15.4, message: "Use offer.period")
    public var offerPeriodStringRepresentation: String? { offer?.period?.iso8601 }
    /// The ISO 4217 code of ``renewalPrice``'s currency.
    @available(iOS, deprecated: 16.0, message: "Use currency") @available(macOS, deprecated: 13.0, message: "Use currency")
    public var currencyCode: String? { currency?.identifier }
    /// The environment's name: `Sandbox`, `Production` or `Xcode`.
    @available(iOS, deprecated: 16.0, message: "Use environment") @available(macOS, deprecated: 13.0, message: "Use environment")
    public var environmentStringRepresentation: String { environment.rawValue }
}

extension AppTransaction {
    /// The platform the customer first got the app on, by name (`iOS`, `macOS`, `tvOS`, `visionOS`):
    /// ``originalPlatform``'s raw value.
    @available(iOS, deprecated: 18.4, message: "Use originalPlatform") @available(macOS, deprecated: 15.4, message: "Use originalPlatform")
    public var originalPlatformStringRepresentation: String { originalPlatform.rawValue }

    /// The store the customer got the app from, by the App Store's name (`CONSUMER`): ``storeType``'s raw value.
    @available(iOS, deprecated: 27.0, message: "Use storeType") @available(macOS, deprecated: 27.0, message: "Use storeType")
    public var storeTypeStringRepresentation: String { storeType.rawValue }
}
