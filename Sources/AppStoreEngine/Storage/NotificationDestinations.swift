public import Foundation

/// Where a tenant's App Store Server Notifications go: one URL for every app, and URLs for particular apps.
///
/// A tenant's destinations are a row of its storage (``StorageChange/saveNotificationDestinations(_:)``), so every
/// server on the storage sends to the same place and a restart keeps them. They are wiring to a backend, not store
/// state: erasing, resetting or restoring a tenant leaves them, and snapshots do not carry them.
public struct NotificationDestinations: Sendable, Hashable, Codable {
    /// The URL of apps that have none of their own; `nil` sends nothing for them.
    public var defaultURL: URL?
    /// URLs by bundle identifier.
    public var urlsByBundleID: [String: URL]

    /// Creates destinations.
    public init(defaultURL: URL? = nil, urlsByBundleID: [String: URL] = [:]) {
        self.defaultURL = defaultURL
        self.urlsByBundleID = urlsByBundleID
    }

    /// The URL notifications for an app are sent to, if any.
    public func url(for bundleID: String) -> URL? {
        urlsByBundleID[bundleID] ?? defaultURL
    }
}
