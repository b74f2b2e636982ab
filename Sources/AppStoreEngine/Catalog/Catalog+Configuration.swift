public import AppStoreFormats
import Foundation
public import StoreKitConfiguration

extension Catalog {
    /// The catalog a `.storekit` configuration describes: every product of every kind, in file order.
    ///
    /// A product whose price was never set (`""`) sells for zero. A file synced with App Store Connect names the app's
    /// Apple ID (`_applicationInternalID`), which becomes ``appAppleID``.
    public init(configuration: StoreKitConfigurationFile) {
        var groupNames: [String: [LocalizedText]] = [:]
        for group in configuration.subscriptionGroups {
            let localized = group.localizations.filter { !$0.displayName.isEmpty }
                .map { LocalizedText(locale: $0.locale, displayName: $0.displayName, description: $0.description) }
            groupNames[group.id] = localized.isEmpty ? [LocalizedText(locale: "", displayName: group.name, description: "")] : localized
        }
        self.init(products: configuration.allProducts.map { CatalogProduct(configured: $0, groupNames: groupNames) })
        appAppleID = configuration.settings.applicationInternalID.flatMap { Int64($0) }.flatMap { $0 > 0 ? $0 : nil }
    }
}

extension PromotionalOfferKey {
    /// The keys a `.storekit` configuration signs promotional offers with: its `subscriptionOffersKeyPair`, if it
    /// has one whose private key reads.
    public static func keys(in configuration: StoreKitConfigurationFile) -> [PromotionalOfferKey] {
        guard let pair = configuration.offerSigningKey,
              let key = try? PromotionalOfferKey(keyID: pair.id, storeKitPrivateKey: pair.privateKey) else { return [] }
        return [key]
    }
}

extension CatalogProduct {
    /// The product a configuration entry describes.
    init(configured: ConfiguredProduct, groupNames: [String: [LocalizedText]]) {
        let localizations: [Localization]
        var subscription: SubscriptionTerms?
        switch configured {
        case .product(let product):
            localizations = product.localizations
        case .subscription(let definition):
            localizations = definition.localizations
            subscription = SubscriptionTerms(
                groupID: definition.groupID, level: definition.groupLevel, period: definition.period,
                introductoryOffer: definition.introductoryOffer, promotionalOffers: definition.promotionalOffers,
                offerCodes: definition.offerCodes, winBackOffers: definition.winBackOffers,
                groupNames: groupNames[definition.groupID] ?? [],
                billingPlans: definition.billingPlans.filter(\.isEnabled).map { plan in
                    SubscriptionBillingPlan(
                        type: plan.billingPlanType, price: plan.price ?? configured.price ?? 0,
                        commitmentPrice: plan.commitmentPrice ?? plan.price ?? configured.price ?? 0
                    )
                }
            )
        }
        self.init(
            id: configured.productID, type: ProductType(configured.type), referenceName: configured.referenceName ?? "",
            price: configured.price ?? 0, isFamilyShareable: configured.familyShareable,
            localizations: localizations.map { LocalizedText(locale: $0.locale, displayName: $0.displayName, description: $0.description) },
            subscription: subscription
        )
    }
}

extension ProductType {
    /// The product type of a configuration's product kind.
    init(_ kind: ProductKind) {
        switch kind {
        case .consumable: self = .consumable
        case .nonConsumable: self = .nonConsumable
        case .nonRenewingSubscription: self = .nonRenewable
        case .autoRenewable: self = .autoRenewable
        }
    }
}

extension StoreSettings {
    /// The settings a `.storekit` configuration's `settings` object describes.
    ///
    /// An unknown `_timeRate` falls back to real time (configuration validation rejects it anyway).
    public init(configuration: StoreKitConfigurationFile) {
        let settings = configuration.settings
        self.init(
            storefront: settings.storefront, locale: settings.locale,
            askToBuyEnabled: settings.askToBuyEnabled, interruptedPurchasesEnabled: settings.interruptedPurchasesEnabled,
            failTransactionsEnabled: settings.failTransactionsEnabled, failureErrorCode: settings.legacyStoreKitError ?? 0,
            disableDialogs: settings.disableDialogs, timeRate: TimeRate(rawValue: settings.timeRate) ?? .realTime,
            renewalBillingIssuesEnabled: settings.renewalBillingIssuesEnabled,
            billingGracePeriodEnabled: settings.billingGracePeriodEnabled
        )
    }
}
