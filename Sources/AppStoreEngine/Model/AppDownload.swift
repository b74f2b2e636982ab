public import Foundation

/// An account's copy of an app: when the account first downloaded it, and the app's version then and now.
///
/// The store records one per account and app the first time the app reaches the store for the account — its app
/// transaction or receipt requested from a device, or its first purchase — and keeps it: the app transaction's
/// `originalPurchaseDate` and `originalApplicationVersion`, and the receipt's `original_application_version`, come
/// from it, so they stay the same in every request and on every server.
public struct AppDownload: Sendable, Hashable, Codable {
    /// The app's bundle identifier.
    public var bundleID: String
    /// When the account first downloaded the app (the app transaction's `originalPurchaseDate`).
    public var date: Date
    /// The app's version (`CFBundleVersion`) the account first downloaded (`originalApplicationVersion`).
    public var originalVersion: String
    /// The app's version the account's device last reported (the app transaction's `applicationVersion`).
    public var version: String

    /// Creates a download record.
    public init(bundleID: String, date: Date, originalVersion: String, version: String? = nil) {
        self.bundleID = bundleID
        self.date = date
        self.originalVersion = originalVersion
        self.version = version ?? originalVersion
    }
}
