import Foundation

extension StoreKitConfigurationFile {
    /// A one-screen overview: products by kind with ids and prices, each subscription group with its levels
    /// and each subscription's offers, and the settings that differ from Xcode's defaults.
    ///
    /// This is what `storekit config check` prints for a valid file.
    public func summary() -> String {
        var lines: [String] = []
        var header = "Version \(version)"
        if let identifier { header += ", identifier \(identifier)" }
        if settings.isSynced { header += ", synced with App Store Connect" }
        lines.append(header)
        let subscriptionCount = allSubscriptions.count
        lines.append(
            "\(count(allProducts.count, "product")): \(products.count { $0.type == .consumable }) consumable, "
                + "\(products.count { $0.type == .nonConsumable }) non-consumable, "
                + "\(nonRenewingSubscriptions.count) non-renewing, \(subscriptionCount) auto-renewable "
                + "in \(count(subscriptionGroups.count, "group"))")

        let kinds: [(String, [ProductDefinition])] = [
            ("Consumables", products.filter { $0.type == .consumable }),
            ("Non-consumables", products.filter { $0.type == .nonConsumable }),
            ("Non-renewing subscriptions", nonRenewingSubscriptions),
        ]
        let idWidth = min(allProducts.map(\.productID.count).max() ?? 0, 48)
        for (title, list) in kinds where !list.isEmpty {
            lines.append("\(title) (\(list.count))")
            for product in list {
                var line = "  \(pad(product.productID, idWidth))  \(priceText(product.displayPrice))"
                if product.familyShareable { line += "  family-shareable" }
                lines.append(line)
            }
        }
        for group in subscriptionGroups {
            let levels = group.levels.map(String.init).joined(separator: ", ")
            lines.append(
                "Subscription group \"\(group.name)\" (id \(group.id)), \(count(group.subscriptions.count, "subscription"))"
                    + (levels.isEmpty ? "" : ", levels \(levels)"))
            for subscription in group.subscriptions.sorted(by: { $0.groupLevel < $1.groupLevel }) {
                var line =
                    "  level \(subscription.groupLevel)  \(pad(subscription.productID, idWidth))  "
                    + "\(priceText(subscription.displayPrice)) \(every(subscription.period))"
                if subscription.familyShareable { line += ", family-shareable" }
                lines.append(line)
                let offers = offerSummary(subscription)
                if !offers.isEmpty { lines.append("      offers: " + offers) }
            }
        }
        let changed = changedSettings()
        lines.append(
            changed.isEmpty
                ? "Settings: defaults (storefront USA, locale en_US, real time)"
                : "Settings: " + changed.joined(separator: "; "))
        return lines.joined(separator: "\n")
    }

    /// Everything in the model as readable text, one fact per line: every product with its localizations,
    /// every offer and billing plan, every setting (defaults included), policies, the signing key's id and
    /// any keys kept without being understood.
    ///
    /// This is what `storekit config show` prints.
    public func detailedDescription() -> String {
        var lines: [String] = []
        lines.append("Version: \(version)")
        lines.append("Identifier: \(identifier ?? "(none)")")
        for (title, list) in [("Products", products), ("Non-renewing subscriptions", nonRenewingSubscriptions)] {
            lines.append("")
            lines.append("\(title) (\(list.count))")
            for product in list {
                lines.append("  \(product.productID)")
                lines.append("    Type: \(product.type) (\(product.type.rawValue))")
                appendProductFields(
                    &lines, indent: "    ", referenceName: product.referenceName, displayPrice: product.displayPrice,
                    familyShareable: product.familyShareable, internalID: product.internalID,
                    localizations: product.localizations)
            }
        }
        for group in subscriptionGroups {
            lines.append("")
            lines.append("Subscription group \"\(group.name)\"")
            lines.append("  ID: \(group.id)")
            appendLocalizations(&lines, indent: "  ", group.localizations)
            for subscription in group.subscriptions {
                lines.append("  \(subscription.productID)")
                lines.append("    Type: \(subscription.type) (\(subscription.type.rawValue))")
                lines.append("    Level: \(subscription.groupLevel)")
                lines.append("    Period: \(subscription.period) (\(subscription.period.iso8601))")
                appendProductFields(
                    &lines, indent: "    ", referenceName: subscription.referenceName,
                    displayPrice: subscription.displayPrice, familyShareable: subscription.familyShareable,
                    internalID: subscription.internalID, localizations: subscription.localizations)
                if subscription.introductoryOffers.isEmpty {
                    lines.append("    Introductory offer: none")
                }
                for offer in subscription.introductoryOffers {
                    lines.append("    Introductory offer: \(describe(offer))")
                }
                for offer in subscription.promotionalOffers {
                    lines.append("    Promotional offer \(offer.offerID ?? "?"): \(describe(offer))")
                }
                for offer in subscription.offerCodes {
                    var line = "    Offer code \"\(offer.referenceName ?? "")\": \(describe(offer))"
                    if let eligibility = offer.eligibility {
                        line += "; for \(eligibility.map(\.rawValue).joined(separator: ", "))"
                    }
                    if let stackable = offer.isStackable { line += stackable ? "; stackable" : "; not stackable" }
                    lines.append(line)
                }
                for offer in subscription.winBackOffers {
                    var line = "    Win-back offer \(offer.offerID ?? "?"): \(describe(offer))"
                    if let eligible = offer.isEligible { line += eligible ? "; customer eligible" : "; customer not eligible" }
                    lines.append(line)
                }
                for plan in subscription.billingPlans {
                    lines.append(
                        "    Billing plan \(plan.billingPlanType): \(priceText(plan.displayPrice)), commitment "
                            + "\(priceText(plan.commitmentDisplayPrice))\(plan.isEnabled ? "" : ", disabled")")
                }
            }
        }
        lines.append("")
        lines.append("Settings")
        lines.append("  Storefront: \(settings.storefront)")
        lines.append("  Locale: \(settings.locale)")
        lines.append("  Time rate: \(timeRateText(settings.timeRate))")
        switch settings.compatibilityTimeRate {
        case .rate(let rate): lines.append("  Compatibility time rate: \(timeRateText(rate))")
        case .byServiceVersion(let rates):
            let text = rates.keys.sorted().map { "service \($0): \(timeRateText(rates[$0] ?? 0))" }.joined(separator: ", ")
            lines.append("  Compatibility time rate: \(text)")
        case nil: break
        }
        lines.append("  Ask to Buy: \(onOff(settings.askToBuyEnabled))")
        lines.append("  Interrupted purchases: \(onOff(settings.interruptedPurchasesEnabled))")
        lines.append("  Renewal billing issues: \(onOff(settings.renewalBillingIssuesEnabled))")
        lines.append("  Billing grace period: \(onOff(settings.billingGracePeriodEnabled))")
        lines.append("  Dialogs disabled: \(onOff(settings.disableDialogs))")
        lines.append("  Fail transactions (legacy): \(onOff(settings.failTransactionsEnabled))")
        if let legacy = settings.legacyStoreKitError { lines.append("  Legacy StoreKit error: \(legacy)") }
        if settings.storeKitErrors.isEmpty {
            lines.append("  Simulated StoreKit errors: none configured")
        } else {
            lines.append("  Simulated StoreKit errors:")
            for entry in settings.storeKitErrors {
                var line = "    \(entry.name): \(onOff(entry.enabled))"
                if let current = entry.current { line += " (chosen: \(current.type) #\(current.index))" }
                lines.append(line)
            }
        }
        if let id = settings.applicationInternalID { lines.append("  Synced app ID: \(id)") }
        if let team = settings.developerTeamID { lines.append("  Developer team: \(team)") }
        if let date = settings.lastSynchronizedDate {
            lines.append("  Last synchronized: \(date.formatted(.iso8601))")
        }
        if settings.shouldSetupSyncOnLoad { lines.append("  Sync pending: on") }
        if let appPolicies {
            lines.append("")
            lines.append("App policies")
            lines.append("  EULA: \(appPolicies.eula.isEmpty ? "Apple's standard EULA" : clip(appPolicies.eula))")
            for policy in appPolicies.policies {
                let text = [policy.policyURL, clip(policy.policyText)].filter { !$0.isEmpty }.joined(separator: " — ")
                lines.append("  Privacy policy (\(policy.locale)): \(text.isEmpty ? "(empty)" : text)")
            }
        }
        if let offerSigningKey {
            lines.append("")
            lines.append("Offer signing key: id \(offerSigningKey.id)")
        }
        let unknown = unknownKeyPaths()
        if !unknown.isEmpty {
            lines.append("")
            lines.append("Kept as is (not modelled): " + unknown.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    // MARK: - Pieces

    private func offerSummary(_ subscription: SubscriptionDefinition) -> String {
        var parts: [String] = []
        if let intro = subscription.introductoryOffer { parts.append("intro \(describe(intro))") }
        if !subscription.promotionalOffers.isEmpty {
            parts.append("promotional " + subscription.promotionalOffers.map { $0.offerID ?? "?" }.joined(separator: ", "))
        }
        if !subscription.offerCodes.isEmpty {
            parts.append("offer codes " + subscription.offerCodes.map { "\"\($0.referenceName ?? "")\"" }.joined(separator: ", "))
        }
        if !subscription.winBackOffers.isEmpty {
            parts.append("win-back " + subscription.winBackOffers.map { $0.offerID ?? "?" }.joined(separator: ", "))
        }
        return parts.joined(separator: "; ")
    }

    private func changedSettings() -> [String] {
        var changed: [String] = []
        if settings.storefront != "USA" { changed.append("storefront \(settings.storefront)") }
        if settings.locale != "en_US" { changed.append("locale \(settings.locale)") }
        if settings.timeRate != 0 { changed.append("time rate \(timeRateText(settings.timeRate))") }
        if settings.askToBuyEnabled { changed.append("Ask to Buy on") }
        if settings.interruptedPurchasesEnabled { changed.append("interrupted purchases on") }
        if settings.renewalBillingIssuesEnabled { changed.append("renewal billing issues on") }
        if settings.billingGracePeriodEnabled { changed.append("billing grace period on") }
        if settings.disableDialogs { changed.append("dialogs disabled") }
        if settings.failTransactionsEnabled {
            changed.append("fail transactions on (error \(settings.legacyStoreKitError ?? 0))")
        }
        let enabled = settings.storeKitErrors.filter(\.enabled).map(\.name)
        if !enabled.isEmpty { changed.append("simulated errors on: " + enabled.joined(separator: ", ")) }
        return changed
    }

    private func describe(_ offer: OfferDefinition) -> String {
        var text: String
        switch offer.paymentMode {
        case .freeTrial:
            text = "free trial for \(offer.period)"
        case .payAsYouGo:
            text = "pay as you go, \(priceText(offer.displayPrice ?? "")) \(every(offer.period)) for \(count(offer.periodCount, "period"))"
        case .payUpFront:
            text = "pay up front, \(priceText(offer.displayPrice ?? "")) for \(offer.period)"
        }
        if let plan = offer.billingPlanType, plan != .billedUpFront { text += " (\(plan) plan)" }
        return text
    }

    private func appendProductFields(
        _ lines: inout [String], indent: String, referenceName: String?, displayPrice: String, familyShareable: Bool,
        internalID: String, localizations: [Localization]
    ) {
        lines.append("\(indent)Reference name: \(referenceName ?? "(none)")")
        lines.append("\(indent)Price: \(priceText(displayPrice)) (\(settings.storefront) storefront)")
        lines.append("\(indent)Family Sharing: \(onOff(familyShareable))")
        if !internalID.isEmpty { lines.append("\(indent)Internal ID: \(internalID)") }
        appendLocalizations(&lines, indent: indent, localizations)
    }

    private func appendLocalizations(_ lines: inout [String], indent: String, _ localizations: [Localization]) {
        for localization in localizations {
            var line = "\(indent)\(localization.locale): \"\(localization.displayName)\""
            if !localization.description.isEmpty { line += " — \(clip(localization.description))" }
            lines.append(line)
        }
    }

    private func unknownKeyPaths() -> [String] {
        var paths = XcodeJSONWriter.sortedKeys(unknownKeys)
        paths += XcodeJSONWriter.sortedKeys(settings.unknownKeys).map { "settings.\($0)" }
        for (index, product) in products.enumerated() {
            paths += XcodeJSONWriter.sortedKeys(product.unknownKeys).map { "products[\(index)].\($0)" }
        }
        for (index, product) in nonRenewingSubscriptions.enumerated() {
            paths += XcodeJSONWriter.sortedKeys(product.unknownKeys).map { "nonRenewingSubscriptions[\(index)].\($0)" }
        }
        for (groupIndex, group) in subscriptionGroups.enumerated() {
            paths += XcodeJSONWriter.sortedKeys(group.unknownKeys).map { "subscriptionGroups[\(groupIndex)].\($0)" }
            for (index, subscription) in group.subscriptions.enumerated() {
                paths += XcodeJSONWriter.sortedKeys(subscription.unknownKeys).map {
                    "subscriptionGroups[\(groupIndex)].subscriptions[\(index)].\($0)"
                }
            }
        }
        return paths
    }

    /// `every month`, `every 3 months`.
    private func every(_ period: SubscriptionPeriod) -> String {
        period.value == 1 ? "every \(String(period.description.dropFirst(2)))" : "every \(period)"
    }

    private func timeRateText(_ rate: Int) -> String {
        Settings.timeRateNames[rate].map { "\(rate) (\($0))" } ?? "\(rate)"
    }

    private func priceText(_ displayPrice: String) -> String {
        displayPrice.isEmpty ? "(no price)" : displayPrice
    }

    private func onOff(_ flag: Bool) -> String { flag ? "on" : "off" }

    private func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private func clip(_ text: String) -> String {
        let oneLine = text.replacingOccurrences(of: "\n", with: " ")
        return oneLine.count > 80 ? String(oneLine.prefix(79)) + "…" : oneLine
    }
}
