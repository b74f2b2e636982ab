import AppStoreEngine
import AppStoreFormats
import Foundation

/// The regions whose storefronts Apple's External Purchase APIs serve, as ISO 3166-1 alpha-3 storefront codes.
enum ExternalPurchaseRegions {
    /// The European Union: custom link tokens (`SKExternalPurchaseCustomLinkRegions`).
    static let europeanUnion: Set<String> = [
        "AUT", "BEL", "BGR", "HRV", "CYP", "CZE", "DNK", "EST", "FIN", "FRA", "DEU", "GRC", "HUN", "IRL", "ITA", "LVA", "LTU",
        "LUX", "MLT", "NLD", "POL", "PRT", "ROU", "SVK", "SVN", "ESP", "SWE",
    ]
    /// The European Economic Area and South Korea: the notice sheet's tokens (`presentNoticeSheet()`).
    static let noticeSheet: Set<String> = europeanUnion.union(["ISL", "LIE", "NOR", "KOR"])

    /// Whether the current account can use an API of `regions`: it can make payments, in a storefront there.
    static func eligible(_ regions: Set<String>) async -> Bool {
        guard let device = try? StoreKitDevice.current() else { return false }
        let accountID = device.environment.accountID
        guard let account = try? await device.call({ connection throws(StoreError) in try await connection.account(accountID) }) else { return false }
        return account.canMakePayments && regions.contains(account.storefront)
    }

    /// A token of the store for the current account's app, after the eligibility check.
    static func token(_ type: ExternalPurchaseTokenType?, regions: Set<String>) async throws -> ExternalPurchaseTokenRecord? {
        guard await eligible(regions) else { throw StoreKitError.notAvailableInStorefront }
        let device = try StoreKitDevice.current()
        let (accountID, bundleID) = (device.environment.accountID, device.environment.bundleID)
        return try await device.call { connection throws(StoreError) in
            try await connection.externalPurchaseToken(tokenType: type, accountID: accountID, bundleID: bundleID)
        }
    }
}

/// Custom links to external purchases and their tokens, for apps in the European Union (iOS 18.1+).
///
/// ``token(for:)`` asks the store, as the App Store does: the active `ACQUISITION` or `SERVICES` token of the account
/// in the app, a new one when the store issues one — then the app's server hears `EXTERNAL_PURCHASE_TOKEN`/`CREATED`,
/// and later `ACTIVE_TOKEN_REMINDER` and `UNREPORTED` on the store's clock until it reports the token to the External
/// Purchase Server API — or `nil`. Tokens outside Production start with `SANDBOX_` and expire an hour after creation.
public enum ExternalPurchaseCustomLink {
    /// Whether the app can use custom links: the account can make payments, in a storefront of the European Union.
    public static var isEligible: Bool {
        get async { await ExternalPurchaseRegions.eligible(ExternalPurchaseRegions.europeanUnion) }
    }

    /// Requests an external purchase token of a type, `ACQUISITION` or `SERVICES`.
    ///
    /// - Returns: the active token of the type, or `nil` when there is none (an `ACQUISITION` token's one period ended).
    /// - Throws: `StoreKitError.notAvailableInStorefront` when the app is not eligible (``isEligible``);
    ///   `StoreKitError.unsupported` for another token type.
    public static func token(for tokenType: String) async throws -> ExternalPurchaseCustomLink.Token? {
        guard let type = ExternalPurchaseTokenType(rawValue: tokenType) else { throw StoreKitError.unsupported }
        return try await ExternalPurchaseRegions.token(type, regions: ExternalPurchaseRegions.europeanUnion)
            .map { Token(value: try $0.token.encodedValue()) }
    }

    /// A token you use with the External Purchase custom link API.
    public struct Token: Equatable, Hashable, Sendable {
        /// A Base64URL-encoded JSON string that represents the external purchase token.
        public let value: String
    }
}

/// The notice sheet that informs customers before an external purchase, for apps in the EEA and South Korea
/// (iOS 17.4+).
public enum ExternalPurchase {
    /// Whether the app can present the notice sheet: the account can make payments, in a storefront of the EEA or
    /// South Korea.
    public static var canPresent: Bool {
        get async { await ExternalPurchaseRegions.eligible(ExternalPurchaseRegions.noticeSheet) }
    }

    /// Presents the notice sheet. The customer continues, and the store issues a new external purchase token, which
    /// the app's server must report; unreported, it hears `EXTERNAL_PURCHASE_TOKEN`/`UNREPORTED` 10 days later on the
    /// store's clock.
    ///
    /// - Throws: `StoreKitError.notAvailableInStorefront` when ``canPresent`` is `false`.
    public static func presentNoticeSheet() async throws -> ExternalPurchase.NoticeResult {
        guard let token = try await ExternalPurchaseRegions.token(nil, regions: ExternalPurchaseRegions.noticeSheet) else {
            throw StoreKitError.unknown
        }
        return .continuedWithExternalPurchaseToken(token: try token.token.encodedValue())
    }

    /// How the customer left the notice sheet.
    public enum NoticeResult: Equatable, Hashable, Sendable {
        /// The customer cancelled.
        case cancelled
        /// The customer chose to continue to the external purchase; report `token` to Apple.
        case continuedWithExternalPurchaseToken(token: String)
    }
}
