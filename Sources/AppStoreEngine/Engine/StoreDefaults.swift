public import Foundation

/// What a store, an app process or a command uses when it is told nothing else.
public enum StoreDefaults {
    /// The version of OpenStoreKit, reported by `storekit --version` and the server's `/health`.
    public static let version = "0.1.0"
    /// The bundle identifier used when an app or a command names none.
    public static let bundleID = "com.example.app"
    /// The account used when none is named.
    public static let accountID = "default"
    /// The isolated store (tenant) used when none is named.
    public static let tenant = "default"

    /// The device a transaction finished for every device is marked finished on (the App Store Server API's "Finish a
    /// transaction").
    public static let everyDevice = UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))

    /// The app's version (`CFBundleVersion`) where no app says its own: the receipts' and app transactions'
    /// `applicationVersion`, and notifications' `bundleVersion`.
    public static let appVersion = "1"
    /// The App Store's identifier of the app's version (`versionExternalIdentifier`) in a Production app transaction;
    /// sandbox ones have none.
    public static let versionExternalIdentifier: Int64 = 1

    /// A stable stand-in for an app's Apple ID (`appAppleId`), which only App Store Connect assigns: ten digits derived
    /// from the bundle identifier (FNV-1a), the same in every run and process.
    public static func appAppleID(bundleID: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bundleID.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(1_000_000_000 + hash % 9_000_000_000)
    }
}
