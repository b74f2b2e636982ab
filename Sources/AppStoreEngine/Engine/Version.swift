/// The version of OpenStoreKit, reported by `storekit --version` and the server's `/health`.
public let openStoreKitVersion = "0.1.0"

/// The bundle identifier used when an app or a command names none.
public let defaultBundleID = "com.example.app"
