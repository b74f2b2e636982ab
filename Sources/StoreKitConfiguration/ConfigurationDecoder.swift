import Foundation

/// Turns the parsed JSON of a `.storekit` file into the model, reporting every problem with its path.
///
/// It reads by key presence, never by version number: any generation's keys are accepted in any file.
/// Rules that involve several values (duplicate product IDs, group references) are ``ConfigurationValidator``'s;
/// the decoder feeds it as it goes, so every issue comes out in file order.
final class ConfigurationDecoder {
    /// Which offer list an offer came from; decides which keys it needs.
    enum OfferList {
        case introductory, promotional, code, winBack

        var name: String {
            switch self {
            case .introductory: return "introductory offer"
            case .promotional: return "promotional offer"
            case .code: return "offer code"
            case .winBack: return "win-back offer"
            }
        }
    }

    let issues: IssueCollector
    private let validator: ConfigurationValidator

    init(issues: IssueCollector) {
        self.issues = issues
        validator = ConfigurationValidator(issues: issues)
    }

    /// Decodes and validates a whole file; `nil` when the top level is not an object. The result is only
    /// meaningful when no issue was collected.
    func decodeFile(_ root: ConfigurationJSON) -> StoreKitConfigurationFile? {
        guard case .object(let members) = root else {
            issues.add(
                .notAnObject, at: "", "The file's top level is \(root.shortDescription), not a JSON object.",
                fix: "A .storekit file is one object holding products, subscriptionGroups, settings and version.")
            return nil
        }
        let reader = ObjectReader(members: members, path: "", issues: issues)
        var file = StoreKitConfigurationFile()
        file.layout = reader.layout
        file.unknownKeys = reader.unknownKeys(ConfigurationKeys.file)

        // Members are read in Xcode's key order, so issues come out in the order of the file.
        if let policies = reader.object("appPolicies", what: "the app policies") {
            file.appPolicies = decodeAppPolicies(policies)
        }
        file.identifier = reader.string("identifier")
        file.nonRenewingSubscriptions = (reader.array("nonRenewingSubscriptions") ?? []).compactMap {
            decodeProduct($0.value, path: $0.path, list: "nonRenewingSubscriptions")
        }
        file.products = (reader.array("products") ?? []).compactMap {
            decodeProduct($0.value, path: $0.path, list: "products")
        }
        if let settings = reader.object("settings", what: "the settings") {
            file.settings = decodeSettings(settings)
        }
        let groups = reader.array("subscriptionGroups") ?? []
        validator.prescanGroups(groups)
        file.subscriptionGroups = groups.enumerated().compactMap {
            decodeGroup($0.element.value, path: $0.element.path, index: $0.offset)
        }
        if let key = reader.object("subscriptionOffersKeyPair", what: "the offer signing key") {
            file.offerSigningKey = decodeSigningKey(key)
        }
        if let value = reader.value("version") {
            file.version = decodeVersion(value) ?? file.version
        } else {
            reader.reportMissing("version", example: "{ \"major\" : 4, \"minor\" : 0 }")
        }
        return file
    }

    // MARK: - Version

    private func decodeVersion(_ value: ConfigurationJSON) -> ConfigurationVersion? {
        guard case .object(let members) = value else {
            issues.add(
                .invalidVersion, at: "version", "Expected an object with major and minor, found \(value.shortDescription).",
                fix: "Write \"version\" : { \"major\" : 4, \"minor\" : 0 }.")
            return nil
        }
        let reader = ObjectReader(members: members, path: "version", issues: issues)
        guard let major = reader.int("major", required: "4"), let minor = reader.int("minor", required: "0") else {
            return nil
        }
        var version = ConfigurationVersion(major: major, minor: minor, unknownKeys: reader.unknownKeys(ConfigurationKeys.version))
        version.layout = reader.layout
        return version
    }

    // MARK: - Products

    private func decodeProduct(_ value: ConfigurationJSON, path: String, list: String) -> ProductDefinition? {
        guard let reader = ObjectReader.make(value, path: path, issues: issues, what: "a product") else { return nil }
        let allowed: [ProductKind] = list == "products" ? [.consumable, .nonConsumable] : [.nonRenewingSubscription]
        let kind = decodeKind(reader, allowed: allowed, list: list)
        let productID = decodeProductID(reader)
        let referenceName = reader.nullableString("referenceName")
        let displayPrice = reader.price("displayPrice")
        let familyShareable = reader.bool("familyShareable")
        let internalID = reader.string("internalID")
        let localizations = decodeLocalizations(reader)
        guard let kind, let productID else { return nil }
        var product = ProductDefinition(
            type: kind, productID: productID, referenceName: referenceName, displayPrice: displayPrice ?? "",
            familyShareable: familyShareable ?? false, internalID: internalID ?? "", localizations: localizations,
            unknownKeys: reader.unknownKeys(ConfigurationKeys.product))
        product.layout = reader.layout
        return product
    }

    /// Reads `type`, checking Xcode's case-sensitive spelling and that the kind belongs in this list.
    private func decodeKind(_ reader: ObjectReader, allowed: [ProductKind], list: String) -> ProductKind? {
        let spellings = allowed.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
        guard let text = reader.string("type", required: allowed.count == 1 ? "\"\(allowed[0].rawValue)\"" : spellings)
        else { return nil }
        guard let kind = ProductKind(rawValue: text) else {
            let near = ProductKind.allCases.first {
                $0.rawValue.lowercased() == text.lowercased().replacingOccurrences(of: "-", with: "")
                    .replacingOccurrences(of: "_", with: "")
            }
            let fix: String
            if let near, allowed.contains(near) {
                fix = "Types are case-sensitive: write \"\(near.rawValue)\"."
            } else {
                fix = "Use \(spellings) (types are case-sensitive)."
            }
            reader.issues.add(.unknownProductType, at: reader.path("type"), "\"\(text)\" is not a product type.", fix: fix)
            return nil
        }
        guard allowed.contains(kind) else {
            let home: String
            switch kind {
            case .consumable, .nonConsumable: home = "products"
            case .nonRenewingSubscription: home = "nonRenewingSubscriptions"
            case .autoRenewable: home = "a subscription group's subscriptions"
            }
            reader.issues.add(
                .misplacedProduct, at: reader.path("type"),
                "\(kind == .autoRenewable ? "An" : "A") \(kind) (\"\(kind.rawValue)\") cannot be listed in \(list).",
                fix: "Move it to \(home), or use \(spellings).")
            return nil
        }
        return kind
    }

    private func decodeProductID(_ reader: ObjectReader) -> String? {
        guard let productID = reader.string("productID", required: "\"com.example.app.product\"") else { return nil }
        if productID.isEmpty {
            reader.issues.add(
                .emptyProductID, at: reader.path("productID"), "The productID is empty.",
                fix: "Set the identifier your app requests, e.g. \"com.example.app.coins\".")
            return nil
        }
        validator.checkProductID(productID, at: reader.path("productID"))
        return productID
    }

    private func decodeLocalizations(_ reader: ObjectReader) -> [Localization] {
        (reader.array("localizations") ?? []).compactMap { element in
            guard let item = ObjectReader.make(element.value, path: element.path, issues: issues, what: "a localization")
            else { return nil }
            var localization = Localization(
                locale: item.string("locale") ?? "", displayName: item.string("displayName") ?? "",
                description: item.string("description") ?? "", unknownKeys: item.unknownKeys(ConfigurationKeys.localization))
            localization.layout = item.layout
            return localization
        }
    }

    // MARK: - Subscription groups

    private func decodeGroup(_ value: ConfigurationJSON, path: String, index: Int) -> SubscriptionGroupDefinition? {
        guard let reader = ObjectReader.make(value, path: path, issues: issues, what: "a subscription group") else {
            return nil
        }
        let id = reader.string("id", required: "\"1A2B3C4D\"")
        if let id { validator.checkGroupID(id, at: reader.path("id")) }
        let name = reader.string("name")
        let localizations = decodeLocalizations(reader)
        let subscriptions = (reader.array("subscriptions") ?? []).compactMap {
            decodeSubscription($0.value, path: $0.path, groupIndex: index, groupID: id)
        }
        guard let id else { return nil }
        var group = SubscriptionGroupDefinition(
            id: id, name: name ?? "", localizations: localizations, subscriptions: subscriptions,
            unknownKeys: reader.unknownKeys(ConfigurationKeys.group))
        group.layout = reader.layout
        return group
    }

    private func decodeSubscription(
        _ value: ConfigurationJSON, path: String, groupIndex: Int, groupID: String?
    ) -> SubscriptionDefinition? {
        guard let reader = ObjectReader.make(value, path: path, issues: issues, what: "a subscription") else { return nil }
        let kind = decodeKind(reader, allowed: [.autoRenewable], list: "subscriptionGroups[\(groupIndex)].subscriptions")
        let productID = decodeProductID(reader)
        let referenceName = reader.nullableString("referenceName")
        let displayPrice = reader.price("displayPrice")
        let familyShareable = reader.bool("familyShareable")
        let internalID = reader.string("internalID")
        let localizations = decodeLocalizations(reader)
        let subscriptionGroupID = reader.string("subscriptionGroupID", required: "\"\(groupID ?? "1A2B3C4D")\"")
        if let subscriptionGroupID {
            validator.checkSubscriptionGroupID(
                subscriptionGroupID, at: reader.path("subscriptionGroupID"), listedIn: groupIndex, listedInGroupID: groupID)
        }
        let level = reader.int("groupNumber", required: "1")
        if let level, level < 1 {
            issues.add(
                .invalidGroupLevel, at: reader.path("groupNumber"), "\(level) is not a subscription level.",
                fix: "Levels start at 1 (the highest service level); use 1, 2, 3…")
        }
        let period = reader.period("recurringSubscriptionPeriod")
        let introductory = decodeIntroductoryOffers(reader)
        let promotional = decodeOffers(reader, key: "adHocOffers", list: .promotional)
        let codes = decodeOffers(reader, key: "codeOffers", list: .code)
        let winBack = decodeOffers(reader, key: "winbackOffers", list: .winBack)
        let plans = (reader.array("billingPlans") ?? []).compactMap { decodeBillingPlan($0.value, path: $0.path) }

        guard kind != nil, let productID, let subscriptionGroupID, let level, level >= 1, let period else { return nil }
        var subscription = SubscriptionDefinition(
            productID: productID, referenceName: referenceName, displayPrice: displayPrice ?? "",
            familyShareable: familyShareable ?? false, internalID: internalID ?? "", localizations: localizations,
            groupID: subscriptionGroupID, groupLevel: level, period: period, promotionalOffers: promotional,
            offerCodes: codes, winBackOffers: winBack, billingPlans: plans,
            unknownKeys: reader.unknownKeys(ConfigurationKeys.subscription))
        subscription.introductoryOffers = introductory.offers
        subscription.disabledIntroductoryOffer = introductory.disabled
        subscription.layout = reader.layout
        return subscription
    }

    /// Normalises `introductoryOffer` (object, `null`, absent, or switched off with `"paymentMode" : "none"`)
    /// and `introductoryOffers` (5.0+, one entry per billing plan) into one list, checking they agree.
    private func decodeIntroductoryOffers(
        _ reader: ObjectReader
    ) -> (offers: [OfferDefinition], disabled: [String: ConfigurationJSON]?) {
        var legacy: OfferDefinition?
        var legacyIsValid = true
        var disabled: [String: ConfigurationJSON]?
        if let value = reader.value("introductoryOffer") {
            switch value {
            case .null:
                break
            case .object(let members) where members["paymentMode"] == .string("none"):
                // Xcode's "no introductory offer" after one was switched off: not an offer, kept for the round trip.
                disabled = members
            default:
                legacy = decodeOffer(value, path: reader.path("introductoryOffer"), list: .introductory)
                legacyIsValid = legacy != nil
            }
        }
        guard let elements = reader.array("introductoryOffers") else {
            return (legacy.map { [$0] } ?? [], disabled)
        }
        let offers = elements.compactMap { decodeOffer($0.value, path: $0.path, list: .introductory) }
        guard offers.count == elements.count, legacyIsValid else { return (offers, disabled) }

        var seenPlans: Set<String> = []
        for (offer, element) in zip(offers, elements) {
            let plan = offer.billingPlanType?.rawValue ?? BillingPlanType.billedUpFront.rawValue
            if !seenPlans.insert(plan).inserted {
                issues.add(
                    .conflictingIntroductoryOffers, at: element.path,
                    "A second introductory offer for the \(plan) billing plan.",
                    fix: "A subscription has at most one introductory offer per billing plan; remove one.")
            }
        }
        if reader.has("introductoryOffer") {
            var normalised = SubscriptionDefinition(
                productID: "", displayPrice: "", groupID: "", groupLevel: 1, period: SubscriptionPeriod(value: 1, unit: .month))
            normalised.introductoryOffers = offers
            if normalised.introductoryOffer != legacy {
                issues.add(
                    .conflictingIntroductoryOffers, at: reader.path("introductoryOffer"),
                    "introductoryOffer and introductoryOffers describe different introductory offers.",
                    fix: "Make introductoryOffer a copy of the BILLED_UPFRONT entry of introductoryOffers (or null when it is empty), or delete introductoryOffer.")
            }
        }
        return (offers, disabled)
    }

    private func decodeOffers(_ reader: ObjectReader, key: String, list: OfferList) -> [OfferDefinition] {
        let elements = reader.array(key) ?? []
        let offers = elements.compactMap { decodeOffer($0.value, path: $0.path, list: list) }
        guard list == .promotional || list == .winBack else { return offers }
        // Checked on the raw JSON, so an offer with another problem still counts as the first use of its id.
        var firstUse: [String: String] = [:]
        for element in elements {
            guard case .object(let members) = element.value, case .string(let offerID)? = members["offerID"],
                !offerID.isEmpty
            else { continue }
            if let earlier = firstUse[offerID] {
                issues.add(
                    .duplicateOfferID, at: JSONPath.member(element.path, "offerID"),
                    "\"\(offerID)\" is already the offerID of \(earlier).",
                    fix: "Give each \(list.name) of a subscription its own offerID.")
            } else {
                firstUse[offerID] = element.path
            }
        }
        return offers
    }

    private func decodeOffer(_ value: ConfigurationJSON, path: String, list: OfferList) -> OfferDefinition? {
        guard let reader = ObjectReader.make(value, path: path, issues: issues, what: "an offer") else { return nil }
        var mode: OfferDefinition.PaymentMode?
        if let text = reader.string("paymentMode", required: "\"free\"") {
            mode = OfferDefinition.PaymentMode(rawValue: text)
            if mode == nil {
                let fix =
                    text == "none"
                    ? "\"none\" (an introductory offer switched off) is only valid as introductoryOffer; remove this offer or use \"free\", \"payAsYouGo\" or \"payUpFront\"."
                    : "Use \"free\" (free trial), \"payAsYouGo\" or \"payUpFront\" (case-sensitive)."
                issues.add(.unknownPaymentMode, at: reader.path("paymentMode"), "\"\(text)\" is not a payment mode.", fix: fix)
            }
        }
        let period = reader.period("subscriptionPeriod")
        let numberOfPeriods = reader.int("numberOfPeriods")
        if let numberOfPeriods, numberOfPeriods < 1 {
            issues.add(
                .invalidNumberOfPeriods, at: reader.path("numberOfPeriods"), "\(numberOfPeriods) is not a number of periods.",
                fix: "Use 1 or more (or remove the key, which means 1).")
        }
        let displayPrice = reader.price("displayPrice")
        let offerID = reader.string("offerID")
        if list == .promotional || list == .winBack, offerID?.isEmpty ?? !reader.has("offerID") {
            let purpose =
                list == .promotional
                ? "the identifier your app passes to Product.PurchaseOption.promotionalOffer"
                : "the identifier of the win-back offer"
            issues.add(
                .missingOfferID, at: reader.path("offerID"), "A \(list.name) needs an offerID.",
                fix: "Add \"offerID\" : \"…\" with \(purpose).")
        }
        let referenceName = reader.string("referenceName")
        let eligibility = reader.array("eligibility").map { elements in
            elements.compactMap { element -> OfferEligibility? in
                guard case .string(let text) = element.value else {
                    issues.add(
                        .wrongType, at: element.path, "Expected a string, found \(element.value.shortDescription).",
                        fix: "Use \"new\", \"existing\" or \"expired\".")
                    return nil
                }
                return OfferEligibility(rawValue: text)
            }
        }
        let isStackable = reader.bool("isStackable")
        let isEligible = reader.bool("isEligible")
        let billingPlanType = reader.string("billingPlanType").map(BillingPlanType.init(rawValue:))
        let internalID = reader.string("internalID")
        guard let mode, let period, numberOfPeriods.map({ $0 >= 1 }) ?? true else { return nil }
        var offer = OfferDefinition(
            internalID: internalID ?? "", paymentMode: mode, period: period, numberOfPeriods: numberOfPeriods,
            displayPrice: displayPrice, offerID: offerID, referenceName: referenceName, eligibility: eligibility,
            isStackable: isStackable, isEligible: isEligible, billingPlanType: billingPlanType,
            unknownKeys: reader.unknownKeys(ConfigurationKeys.offer))
        offer.layout = reader.layout
        return offer
    }

    private func decodeBillingPlan(_ value: ConfigurationJSON, path: String) -> BillingPlan? {
        guard let reader = ObjectReader.make(value, path: path, issues: issues, what: "a billing plan") else { return nil }
        let type = reader.string("billingPlanType", required: "\"BILLED_UPFRONT\"")
        let displayPrice = reader.price("displayPrice")
        let commitment = reader.price("commitmentDisplayPrice")
        let internalID = reader.string("internalID")
        let isEnabled = reader.bool("isEnabled")
        guard let type else { return nil }
        var plan = BillingPlan(
            billingPlanType: BillingPlanType(rawValue: type), displayPrice: displayPrice ?? "",
            commitmentDisplayPrice: commitment ?? "", internalID: internalID ?? "", isEnabled: isEnabled ?? true,
            unknownKeys: reader.unknownKeys(ConfigurationKeys.billingPlan))
        plan.layout = reader.layout
        return plan
    }

    // MARK: - Settings

    private func decodeSettings(_ reader: ObjectReader) -> Settings {
        var settings = Settings(unknownKeys: reader.unknownKeys(ConfigurationKeys.settings))
        settings.layout = reader.layout
        if let storefront = reader.string("_storefront") {
            if !Storefronts.codes.contains(storefront) {
                let upper = storefront.uppercased()
                let fix =
                    Storefronts.codes.contains(upper)
                    ? "Storefront codes are upper case: write \"\(upper)\"."
                    : "Use an ISO 3166-1 alpha-3 country code in upper case, e.g. \"USA\", \"FRA\" or \"JPN\"."
                issues.add(.invalidStorefront, at: reader.path("_storefront"), "\"\(storefront)\" is not a storefront code.", fix: fix)
            }
            settings.storefront = storefront
        }
        if let locale = reader.string("_locale") { settings.locale = locale }
        if let rate = reader.int("_timeRate") {
            if Settings.timeRateNames[rate] == nil {
                issues.add(
                    .unknownTimeRate, at: reader.path("_timeRate"), "\(rate) is not an SKTestSession.TimeRate value.",
                    fix: "Use 0 (real time), 1–6, 10–13, 15 or 1000–1005, e.g. 1003 to renew every 30 seconds.")
            }
            settings.timeRate = rate
        }
        if let value = reader.value("_compatibilityTimeRate") {
            settings.compatibilityTimeRate = decodeCompatibilityTimeRate(value, path: reader.path("_compatibilityTimeRate"))
        }
        settings.askToBuyEnabled = reader.bool("_askToBuyEnabled") ?? false
        settings.interruptedPurchasesEnabled = reader.bool("_billingIssuesEnabled") ?? false
        settings.renewalBillingIssuesEnabled = reader.bool("_renewalBillingIssuesEnabled") ?? false
        settings.billingGracePeriodEnabled = reader.bool("_billingGracePeriodEnabled") ?? false
        settings.disableDialogs = reader.bool("_disableDialogs") ?? false
        settings.failTransactionsEnabled = reader.bool("_failTransactionsEnabled") ?? false
        settings.legacyStoreKitError = reader.int("_storeKitError")
        settings.storeKitErrors = decodeSimulatedErrors(reader)
        settings.applicationInternalID = reader.string("_applicationInternalID")
        settings.developerTeamID = reader.string("_developerTeamID")
        if let value = reader.value("_lastSynchronizedDate") {
            if case .number(let text) = value, let seconds = Double(text) {
                settings.lastSynchronizedDate = Date(timeIntervalSinceReferenceDate: seconds)
                settings.layout.numberText["_lastSynchronizedDate"] = text
            } else {
                reader.reportWrongType(
                    "_lastSynchronizedDate", expected: "a number of seconds since 2001-01-01", found: value,
                    fix: "Write a number without quotes, or delete the key (Xcode rewrites it on the next sync).")
            }
        }
        settings.shouldSetupSyncOnLoad = reader.bool("_shouldSetupSyncOnLoad") ?? false
        return settings
    }

    private func decodeCompatibilityTimeRate(_ value: ConfigurationJSON, path: String) -> Settings.CompatibilityTimeRate? {
        switch value {
        case .number:
            if let rate = value.intValue { return .rate(rate) }
        case .object(let members):
            var rates: [String: Int] = [:]
            for (key, rate) in members {
                guard let number = rate.intValue else {
                    issues.add(
                        .wrongType, at: JSONPath.member(path, key), "Expected a whole number, found \(rate.shortDescription).",
                        fix: "Write a legacy time rate (0–6) without quotes, e.g. 6.")
                    continue
                }
                rates[key] = number
            }
            return .byServiceVersion(rates)
        default:
            break
        }
        issues.add(
            .wrongType, at: path, "Expected a whole number or an object, found \(value.shortDescription).",
            fix: "Write a legacy rate such as 6, or { \"3\" : 6 } as Xcode does, or delete the key.")
        return nil
    }

    private func decodeSimulatedErrors(_ reader: ObjectReader) -> [SimulatedErrorSetting] {
        var firstUse: [String: String] = [:]
        return (reader.array("_storeKitErrors") ?? []).compactMap { element in
            guard let entry = ObjectReader.make(element.value, path: element.path, issues: issues, what: "a simulated error")
            else { return nil }
            let name = entry.string("name", required: "\"Purchase\"")
            let enabled = entry.bool("enabled")
            var current: SimulatedErrorSetting.Choice?
            var currentIsValid = true
            if let value = entry.value("current"), value != .null {
                if let choice = ObjectReader.make(value, path: entry.path("current"), issues: issues, what: "an error choice"),
                    let index = choice.int("index", required: "0"), let type = choice.string("type", required: "\"generic\"")
                {
                    current = SimulatedErrorSetting.Choice(index: index, type: type, unknownKeys: choice.unknownKeys(ConfigurationKeys.choice))
                    current?.layout = choice.layout
                } else {
                    currentIsValid = false
                }
            }
            guard let name, currentIsValid else { return nil }
            if let earlier = firstUse[name] {
                issues.add(
                    .duplicateSimulatedError, at: entry.path("name"), "\"\(name)\" is already configured by \(earlier).",
                    fix: "Entries are matched by name; keep one entry per API.")
            } else {
                firstUse[name] = element.path
            }
            var setting = SimulatedErrorSetting(
                name: name, enabled: enabled ?? false, current: current, unknownKeys: entry.unknownKeys(ConfigurationKeys.simulatedError))
            setting.layout = entry.layout
            return setting
        }
    }

    // MARK: - Policies and key

    private func decodeAppPolicies(_ reader: ObjectReader) -> AppPolicies {
        let policies = (reader.array("policies") ?? []).compactMap { element -> AppPolicies.Policy? in
            guard let item = ObjectReader.make(element.value, path: element.path, issues: issues, what: "a policy") else {
                return nil
            }
            var policy = AppPolicies.Policy(
                locale: item.string("locale") ?? "", policyText: item.string("policyText") ?? "",
                policyURL: item.string("policyURL") ?? "", unknownKeys: item.unknownKeys(ConfigurationKeys.policy))
            policy.layout = item.layout
            return policy
        }
        var appPolicies = AppPolicies(
            eula: reader.string("eula") ?? "", policies: policies, unknownKeys: reader.unknownKeys(ConfigurationKeys.appPolicies))
        appPolicies.layout = reader.layout
        return appPolicies
    }

    private func decodeSigningKey(_ reader: ObjectReader) -> OfferSigningKey? {
        let id = reader.string("id", required: "\"1A2B3C4D\"")
        let privateKey = reader.string("privateKey", required: "\"MIGTAgEAMBMGByqGSM49…\"")
        guard let id, let privateKey else { return nil }
        if Data(base64Encoded: privateKey) == nil {
            issues.add(
                .invalidPrivateKey, at: reader.path("privateKey"), "The private key is not base64.",
                fix: "Paste the base64 DER (PKCS#8) key without PEM header lines or line breaks, or generate a new key in Xcode.")
        }
        var key = OfferSigningKey(id: id, privateKey: privateKey, unknownKeys: reader.unknownKeys(ConfigurationKeys.signingKey))
        key.layout = reader.layout
        return key
    }
}
