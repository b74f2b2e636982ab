import Foundation

/// Turns the model back into the JSON of a `.storekit` file.
///
/// Values loaded from a file keep that file's shape: a key absent from the source that still holds its
/// default stays absent, keys this library does not model are put back, and numbers keep their text.
/// Values created in code are written the way the current Xcode writes them.
enum ConfigurationEncoder {
    static func encode(_ file: StoreKitConfigurationFile) -> ConfigurationJSON {
        var object = ObjectWriter(unknownKeys: file.unknownKeys, known: ConfigurationKeys.file, layout: file.layout)
        object.put("version", encode(file.version))
        object.put("identifier", file.identifier.map(ConfigurationJSON.string), isDefault: file.identifier == nil, fresh: false)
        object.put("products", .array(file.products.map(encode)), isDefault: file.products.isEmpty)
        object.put(
            "nonRenewingSubscriptions", .array(file.nonRenewingSubscriptions.map(encode)),
            isDefault: file.nonRenewingSubscriptions.isEmpty)
        object.put("subscriptionGroups", .array(file.subscriptionGroups.map(encode)), isDefault: file.subscriptionGroups.isEmpty)
        object.put("settings", encode(file.settings), isDefault: isEmpty(encode(file.settings)))
        object.put("appPolicies", file.appPolicies.map(encode), isDefault: file.appPolicies == nil, fresh: false)
        object.put(
            "subscriptionOffersKeyPair", file.offerSigningKey.map(encode), isDefault: file.offerSigningKey == nil, fresh: false)
        return object.json
    }

    private static func encode(_ version: ConfigurationVersion) -> ConfigurationJSON {
        var object = ObjectWriter(unknownKeys: version.unknownKeys, known: ConfigurationKeys.version, layout: version.layout)
        object.put("major", .number(String(version.major)))
        object.put("minor", .number(String(version.minor)))
        return object.json
    }

    private static func encode(_ product: ProductDefinition) -> ConfigurationJSON {
        var object = ObjectWriter(unknownKeys: product.unknownKeys, known: ConfigurationKeys.product, layout: product.layout)
        putProductFields(
            into: &object, type: product.type, productID: product.productID, referenceName: product.referenceName,
            displayPrice: product.displayPrice, familyShareable: product.familyShareable, internalID: product.internalID,
            localizations: product.localizations)
        return object.json
    }

    private static func putProductFields(
        into object: inout ObjectWriter, type: ProductKind, productID: String, referenceName: String?,
        displayPrice: String, familyShareable: Bool, internalID: String, localizations: [Localization]
    ) {
        object.put("type", .string(type.rawValue))
        object.put("productID", .string(productID))
        object.put("referenceName", referenceName.map(ConfigurationJSON.string), isDefault: referenceName == nil)
        object.put("displayPrice", .string(displayPrice), isDefault: displayPrice.isEmpty)
        object.put("familyShareable", .bool(familyShareable), isDefault: !familyShareable)
        object.put("internalID", .string(internalID), isDefault: internalID.isEmpty)
        object.put("localizations", .array(localizations.map(encode)), isDefault: localizations.isEmpty)
    }

    private static func encode(_ localization: Localization) -> ConfigurationJSON {
        var object = ObjectWriter(
            unknownKeys: localization.unknownKeys, known: ConfigurationKeys.localization, layout: localization.layout)
        object.put("locale", .string(localization.locale), isDefault: localization.locale.isEmpty)
        object.put("displayName", .string(localization.displayName), isDefault: localization.displayName.isEmpty)
        object.put("description", .string(localization.description), isDefault: localization.description.isEmpty)
        return object.json
    }

    private static func encode(_ group: SubscriptionGroupDefinition) -> ConfigurationJSON {
        var object = ObjectWriter(unknownKeys: group.unknownKeys, known: ConfigurationKeys.group, layout: group.layout)
        object.put("id", .string(group.id))
        object.put("name", .string(group.name), isDefault: group.name.isEmpty)
        object.put("localizations", .array(group.localizations.map(encode)), isDefault: group.localizations.isEmpty)
        object.put("subscriptions", .array(group.subscriptions.map(encode)), isDefault: group.subscriptions.isEmpty)
        return object.json
    }

    private static func encode(_ subscription: SubscriptionDefinition) -> ConfigurationJSON {
        var object = ObjectWriter(
            unknownKeys: subscription.unknownKeys, known: ConfigurationKeys.subscription, layout: subscription.layout)
        putProductFields(
            into: &object, type: .autoRenewable, productID: subscription.productID,
            referenceName: subscription.referenceName, displayPrice: subscription.displayPrice,
            familyShareable: subscription.familyShareable, internalID: subscription.internalID,
            localizations: subscription.localizations)
        object.put("subscriptionGroupID", .string(subscription.groupID))
        object.put("groupNumber", .number(String(subscription.groupLevel)))
        object.put("recurringSubscriptionPeriod", .string(subscription.period.iso8601))

        // The introductory offer has two homes: the single `introductoryOffer` (object or null; absent in
        // 5.0+ when there is none) and the 5.0+ array `introductoryOffers`. Each is written when the source
        // had it; a model built in code gets both, as Xcode 26 writes them.
        let layout = subscription.layout
        let hadLegacy = layout.hadKey("introductoryOffer")
        let hadArray = layout.hadKey("introductoryOffers")
        let fresh = layout.sourceKeys == nil || (!hadLegacy && !hadArray)
        if let offer = subscription.introductoryOffer {
            if hadLegacy || fresh { object.put("introductoryOffer", encode(offer)) }
        } else if let disabled = subscription.disabledIntroductoryOffer {
            object.put("introductoryOffer", .object(disabled))
        } else if hadLegacy {
            object.put("introductoryOffer", .null)
        }
        if hadArray || fresh || subscription.introductoryOffers.count > 1 {
            object.put("introductoryOffers", .array(subscription.introductoryOffers.map(encode)))
        }

        object.put("adHocOffers", .array(subscription.promotionalOffers.map(encode)), isDefault: subscription.promotionalOffers.isEmpty)
        object.put("codeOffers", .array(subscription.offerCodes.map(encode)), isDefault: subscription.offerCodes.isEmpty)
        object.put("winbackOffers", .array(subscription.winBackOffers.map(encode)), isDefault: subscription.winBackOffers.isEmpty)
        object.put("billingPlans", .array(subscription.billingPlans.map(encode)), isDefault: subscription.billingPlans.isEmpty)
        return object.json
    }

    private static func encode(_ offer: OfferDefinition) -> ConfigurationJSON {
        var object = ObjectWriter(unknownKeys: offer.unknownKeys, known: ConfigurationKeys.offer, layout: offer.layout)
        object.put("internalID", .string(offer.internalID), isDefault: offer.internalID.isEmpty)
        object.put("paymentMode", .string(offer.paymentMode.rawValue))
        object.put("subscriptionPeriod", .string(offer.period.iso8601))
        object.putOptional("numberOfPeriods", offer.numberOfPeriods.map { .number(String($0)) })
        object.putOptional("displayPrice", offer.displayPrice.map(ConfigurationJSON.string))
        object.putOptional("offerID", offer.offerID.map(ConfigurationJSON.string))
        object.putOptional("referenceName", offer.referenceName.map(ConfigurationJSON.string))
        object.putOptional("eligibility", offer.eligibility.map { .array($0.map { .string($0.rawValue) }) })
        object.putOptional("isStackable", offer.isStackable.map(ConfigurationJSON.bool))
        object.putOptional("isEligible", offer.isEligible.map(ConfigurationJSON.bool))
        object.putOptional("billingPlanType", offer.billingPlanType.map { .string($0.rawValue) })
        return object.json
    }

    private static func encode(_ plan: BillingPlan) -> ConfigurationJSON {
        var object = ObjectWriter(unknownKeys: plan.unknownKeys, known: ConfigurationKeys.billingPlan, layout: plan.layout)
        object.put("billingPlanType", .string(plan.billingPlanType.rawValue))
        object.put("displayPrice", .string(plan.displayPrice), isDefault: plan.displayPrice.isEmpty)
        object.put("commitmentDisplayPrice", .string(plan.commitmentDisplayPrice), isDefault: plan.commitmentDisplayPrice.isEmpty)
        object.put("internalID", .string(plan.internalID), isDefault: plan.internalID.isEmpty)
        object.put("isEnabled", .bool(plan.isEnabled), isDefault: plan.isEnabled)
        return object.json
    }

    private static func encode(_ settings: Settings) -> ConfigurationJSON {
        var object = ObjectWriter(unknownKeys: settings.unknownKeys, known: ConfigurationKeys.settings, layout: settings.layout)
        object.put("_storefront", .string(settings.storefront), isDefault: settings.storefront == "USA")
        object.put("_locale", .string(settings.locale), isDefault: settings.locale == "en_US")
        object.put("_timeRate", .number(String(settings.timeRate)), isDefault: settings.timeRate == 0)
        switch settings.compatibilityTimeRate {
        case .rate(let rate):
            object.put("_compatibilityTimeRate", .number(String(rate)))
        case .byServiceVersion(let rates):
            object.put("_compatibilityTimeRate", .object(rates.mapValues { .number(String($0)) }))
        case nil:
            break
        }
        object.put("_askToBuyEnabled", .bool(settings.askToBuyEnabled), isDefault: !settings.askToBuyEnabled)
        object.put(
            "_billingIssuesEnabled", .bool(settings.interruptedPurchasesEnabled), isDefault: !settings.interruptedPurchasesEnabled)
        object.put(
            "_renewalBillingIssuesEnabled", .bool(settings.renewalBillingIssuesEnabled),
            isDefault: !settings.renewalBillingIssuesEnabled)
        object.put(
            "_billingGracePeriodEnabled", .bool(settings.billingGracePeriodEnabled), isDefault: !settings.billingGracePeriodEnabled)
        object.put("_disableDialogs", .bool(settings.disableDialogs), isDefault: !settings.disableDialogs)
        object.put("_failTransactionsEnabled", .bool(settings.failTransactionsEnabled), isDefault: !settings.failTransactionsEnabled)
        object.putOptional("_storeKitError", settings.legacyStoreKitError.map { .number(String($0)) })
        object.put("_storeKitErrors", .array(settings.storeKitErrors.map(encode)), isDefault: settings.storeKitErrors.isEmpty)
        object.putOptional("_applicationInternalID", settings.applicationInternalID.map(ConfigurationJSON.string))
        object.putOptional("_developerTeamID", settings.developerTeamID.map(ConfigurationJSON.string))
        if let date = settings.lastSynchronizedDate {
            let seconds = date.timeIntervalSinceReferenceDate
            let text = settings.layout.numberText["_lastSynchronizedDate"].flatMap { Double($0) == seconds ? $0 : nil }
            object.put("_lastSynchronizedDate", .number(text ?? "\(seconds)"))
        }
        object.put("_shouldSetupSyncOnLoad", .bool(settings.shouldSetupSyncOnLoad), isDefault: !settings.shouldSetupSyncOnLoad, fresh: false)
        return object.json
    }

    private static func encode(_ setting: SimulatedErrorSetting) -> ConfigurationJSON {
        var object = ObjectWriter(unknownKeys: setting.unknownKeys, known: ConfigurationKeys.simulatedError, layout: setting.layout)
        object.put("name", .string(setting.name))
        object.put("enabled", .bool(setting.enabled), isDefault: !setting.enabled)
        if let current = setting.current {
            var choice = ObjectWriter(unknownKeys: current.unknownKeys, known: ConfigurationKeys.choice, layout: current.layout)
            choice.put("index", .number(String(current.index)))
            choice.put("type", .string(current.type))
            object.put("current", choice.json)
        } else {
            object.put("current", .null, isDefault: true, fresh: false)
        }
        return object.json
    }

    private static func encode(_ policies: AppPolicies) -> ConfigurationJSON {
        var object = ObjectWriter(unknownKeys: policies.unknownKeys, known: ConfigurationKeys.appPolicies, layout: policies.layout)
        object.put("eula", .string(policies.eula), isDefault: policies.eula.isEmpty)
        object.put(
            "policies",
            .array(
                policies.policies.map { policy in
                    var item = ObjectWriter(unknownKeys: policy.unknownKeys, known: ConfigurationKeys.policy, layout: policy.layout)
                    item.put("locale", .string(policy.locale), isDefault: policy.locale.isEmpty)
                    item.put("policyText", .string(policy.policyText), isDefault: policy.policyText.isEmpty)
                    item.put("policyURL", .string(policy.policyURL), isDefault: policy.policyURL.isEmpty)
                    return item.json
                }), isDefault: policies.policies.isEmpty)
        return object.json
    }

    private static func encode(_ key: OfferSigningKey) -> ConfigurationJSON {
        var object = ObjectWriter(unknownKeys: key.unknownKeys, known: ConfigurationKeys.signingKey, layout: key.layout)
        object.put("id", .string(key.id))
        object.put("privateKey", .string(key.privateKey))
        return object.json
    }

    private static func isEmpty(_ value: ConfigurationJSON) -> Bool {
        if case .object(let members) = value { return members.isEmpty }
        return false
    }
}

/// Builds one JSON object: starts from the unknown keys, then adds each modelled key the layout says to write.
private struct ObjectWriter {
    private var members: [String: ConfigurationJSON]
    private let layout: KeyLayout

    init(unknownKeys: [String: ConfigurationJSON], known: Set<String>, layout: KeyLayout) {
        members = unknownKeys.filter { !known.contains($0.key) }
        self.layout = layout
    }

    var json: ConfigurationJSON { .object(members) }

    /// Writes `key` unless it holds its default and the source did not have it (or, for values created in
    /// code, current Xcode would not write it: `fresh == false`). A `nil` value is written as `null`.
    mutating func put(_ key: String, _ value: ConfigurationJSON?, isDefault: Bool = false, fresh: Bool = true) {
        guard layout.shouldWrite(key, isDefault: isDefault, fresh: fresh) else { return }
        members[key] = value ?? .null
    }

    /// Writes an optional member only when it has a value.
    mutating func putOptional(_ key: String, _ value: ConfigurationJSON?) {
        if let value { members[key] = value }
    }
}
