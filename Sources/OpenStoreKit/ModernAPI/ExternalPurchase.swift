import AppStoreEngine
import AppStoreFormats
public import Foundation

/// The regions whose storefronts Apple's External Purchase APIs serve, as ISO 3166-1 alpha-3 storefront codes.
enum ExternalPurchaseRegions {
    /// The European Union's storefronts, each with the lowercased ISO 3166-1 alpha-2 code that the Info.plist keys use.
    private static let europeanUnionAlpha2: [String: String] = [
        "AUT": "at", "BEL": "be", "BGR": "bg", "HRV": "hr", "CYP": "cy", "CZE": "cz", "DNK": "dk", "EST": "ee", "FIN": "fi",
        "FRA": "fr", "DEU": "de", "GRC": "gr", "HUN": "hu", "IRL": "ie", "ITA": "it", "LVA": "lv", "LTU": "lt", "LUX": "lu",
        "MLT": "mt", "NLD": "nl", "POL": "pl", "PRT": "pt", "ROU": "ro", "SVK": "sk", "SVN": "si", "ESP": "es", "SWE": "se",
    ]
    /// The European Union: custom link tokens (`SKExternalPurchaseCustomLinkRegions`).
    static let europeanUnion = Set(europeanUnionAlpha2.keys)
    /// The European Economic Area and South Korea: the notice sheet's tokens (`presentNoticeSheet()`).
    static let noticeSheet: Set<String> = europeanUnion.union(["ISL", "LIE", "NOR", "KOR"])

    /// The storefronts whose customers external purchase links serve (`SKExternalPurchaseLink`,
    /// `SKExternalPurchaseMultiLink`): the European Union, Iceland, Norway, Russia and the United States, each with the
    /// lowercased ISO 3166-1 alpha-2 code that the Info.plist keys use.
    static let linkOut = europeanUnionAlpha2.merging(["ISL": "is", "NOR": "no", "RUS": "ru", "USA": "us"]) { eu, _ in eu }

    /// Whether the current account can use an API of `regions`: it can make payments, in a storefront there.
    static func eligible(_ regions: Set<String>) async -> Bool {
        guard let storefront = await payingStorefront() else { return false }
        return regions.contains(storefront)
    }

    /// The current account's storefront, when the account can make payments; `nil` without a store.
    static func payingStorefront() async -> String? {
        guard let device = try? StoreKitDevice.current() else { return nil }
        let accountID = device.environment.accountID
        guard let account = try? await device.call({ connection throws(StoreError) in try await connection.account(accountID) }),
              account.canMakePayments else { return nil }
        return account.storefront
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
public enum ExternalPurchaseCustomLink: Sendable {
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

    /// Displays the disclosure notice that the customer must see before the app communicates and promotes an external
    /// offer. There is no screen on Linux: the customer continues, and `SKTestSession`'s
    /// `externalPurchaseNoticesShown` lists the notice. The notice issues no token; ``token(for:)`` gives them.
    ///
    /// - Throws: `StoreKitError.notAvailableInStorefront` when the app is not eligible (``isEligible``).
    public static func showNotice(type: ExternalPurchaseCustomLink.NoticeType) async throws -> ExternalPurchaseCustomLink.NoticeResult {
        guard await isEligible else { throw StoreKitError.notAvailableInStorefront }
        let device = try StoreKitDevice.current()
        device.sheets.withLock { $0.externalPurchaseNoticesShown.append(type) }
        return .continued
    }

    /// Where the app takes the customer after the disclosure notice; the notice's wording depends on it.
    public enum NoticeType: Equatable, Hashable, Sendable {
        /// The app opens the destination in a browser, or another destination of its choice.
        case browser
        /// The app displays the destination in a web view or native experience within the app.
        case withinApp
    }

    /// What the customer chose in the disclosure notice.
    public enum NoticeResult: Equatable, Hashable, Sendable {
        /// The customer cancelled; don't offer external purchases.
        case cancelled
        /// The customer continued; the app can offer external purchases.
        case continued
    }
}

/// The notice sheet that informs customers before an external purchase, for apps in the EEA and South Korea
/// (iOS 17.4+).
public enum ExternalPurchase: Sendable {
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

/// Links to a website where the customer makes external purchases, for apps in the European Union, Iceland, Norway,
/// Russia and the United States (iOS 15.4+; ``eligibleURLs`` and ``open(url:)`` iOS 17.5+).
///
/// The links are the app's Info.plist keys, read from `Bundle.main` as StoreKit does: `SKExternalPurchaseLink` (one
/// URL per lowercased ISO 3166-1 alpha-2 country code) for ``canOpen`` and ``open()``, `SKExternalPurchaseMultiLink`
/// (several per code) for ``eligibleURLs`` and ``open(url:)``. A test sets them with `SKTestSession`'s
/// `externalPurchaseLink` and `externalPurchaseMultiLink`.
///
/// There is no continuation sheet and no browser on Linux: opening a link is the customer continuing to it. The store
/// issues a new external purchase token, as the App Store does when it appends one to the link, and the app's server
/// must report it; unreported, it hears `EXTERNAL_PURCHASE_TOKEN`/`UNREPORTED` 10 days later on the store's clock.
/// `SKTestSession`'s `externalPurchaseLinksOpened` lists the links opened.
public enum ExternalPurchaseLink: Sendable {
    /// Whether the app can open its `SKExternalPurchaseLink` link: the account can make payments, in a storefront
    /// where external purchase links are allowed and the app configured one.
    public static var canOpen: Bool {
        get async { await configuredLink() != nil }
    }

    /// Opens the app's `SKExternalPurchaseLink` link for the current storefront.
    ///
    /// - Throws: `StoreKitError.notAvailableInStorefront` when ``canOpen`` is `false`.
    public static func open() async throws {
        guard let url = await configuredLink() else { throw StoreKitError.notAvailableInStorefront }
        try await proceed(to: url)
    }

    /// The app's `SKExternalPurchaseMultiLink` links for the current storefront; `nil` when the account cannot make
    /// payments, the storefront allows no external purchase links, or the app configured none for it.
    public static var eligibleURLs: [URL]? {
        get async {
            guard let found = await linkStorefront(),
                  let urls = found.device.sheets.withLock({ $0.externalPurchaseMultiLink[found.code] }), !urls.isEmpty else { return nil }
            return urls
        }
    }

    /// Opens one of the ``eligibleURLs``.
    ///
    /// - Throws: `StoreKitError.notAvailableInStorefront` when `url` is not among ``eligibleURLs`` (there are none, or
    ///   the app configured other links for the storefront): pass one of them.
    public static func open(url: URL) async throws {
        guard let urls = await eligibleURLs, urls.contains(url) else { throw StoreKitError.notAvailableInStorefront }
        try await proceed(to: url)
    }

    /// The device and the Info.plist country code of the current storefront, when it allows external purchase links
    /// and the account can make payments.
    private static func linkStorefront() async -> (device: StoreKitDevice, code: String)? {
        guard let device = try? StoreKitDevice.current(), let storefront = await ExternalPurchaseRegions.payingStorefront(),
              let code = ExternalPurchaseRegions.linkOut[storefront] else { return nil }
        return (device, code)
    }

    /// The `SKExternalPurchaseLink` link of the current storefront, when it can be opened.
    private static func configuredLink() async -> URL? {
        guard let found = await linkStorefront() else { return nil }
        return found.device.sheets.withLock { $0.externalPurchaseLink[found.code] }
    }

    /// The customer continues to `url`: the store issues the token the App Store appends to the link.
    private static func proceed(to url: URL) async throws {
        _ = try await ExternalPurchaseRegions.token(nil, regions: Set(ExternalPurchaseRegions.linkOut.keys))
        try StoreKitDevice.current().sheets.withLock { $0.externalPurchaseLinksOpened.append(url) }
    }
}
