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
}
