/// The names of every environment variable OpenStoreKit reads, in one place.
///
/// An app process (`SKPaymentQueue.default()`) and the `storekit` command read the same variables, so a
/// shell that sets them once points both at the same store.
public enum EnvironmentVariables {
    /// The `.storekit` file an app process's store sells from — the counterpart of Xcode's "StoreKit
    /// Configuration" scheme option.
    public static let configuration = "OPENSTOREKIT_CONFIG"
    /// The URL of a running `storekit serve` (`http://127.0.0.1:8080`): an app process with it set uses that
    /// server's store — or its tenant's, with ``tenant`` — instead of one in its own process.
    public static let server = "OPENSTOREKIT_SERVER"
    /// The data directory: the store's database, its certificate authority and device state.
    public static let dataDirectory = "OPENSTOREKIT_DATA_DIR"
    /// A `postgres://` URL: the database that holds the store's state instead of the data directory's SQLite file, so
    /// that several servers share one store and its certificate authority. The devices stay in the data directory.
    public static let databaseURL = "OPENSTOREKIT_DATABASE_URL"
    /// The isolated store (tenant) inside the data directory or on the server; `default` when unset.
    public static let tenant = "OPENSTOREKIT_TENANT"
    /// The app's bundle identifier.
    public static let bundleID = "OPENSTOREKIT_BUNDLE_ID"
    /// The customer's account; `default` when unset.
    public static let account = "OPENSTOREKIT_ACCOUNT"
    /// The simulated device an app process runs as (a UUID), to simulate several devices on one data directory.
    public static let deviceID = "OPENSTOREKIT_DEVICE_ID"
    /// A folder of hosted content packages, one `<product ID>/` folder each.
    public static let hostedContent = "OPENSTOREKIT_HOSTED_CONTENT"
    /// `storekit serve`'s address to listen on (`--host`).
    public static let host = "OPENSTOREKIT_HOST"
    /// `storekit serve`'s port (`--port`); 0 picks a free one.
    public static let port = "OPENSTOREKIT_PORT"
    /// `storekit serve`'s HTTPS port (`--https-port`): 443 for Apple's exact URLs, 0 for a free one; unset serves plain
    /// HTTP only.
    public static let httpsPort = "OPENSTOREKIT_HTTPS_PORT"
    /// More host names or addresses for `storekit serve`'s server certificate (`--tls-host`), besides Apple's and the
    /// loopback names, separated by spaces or commas.
    public static let tlsHost = "OPENSTOREKIT_TLS_HOST"
    /// `storekit serve`'s log level (`--log-level`): trace, debug, info, notice, warning, error or critical.
    public static let logLevel = "OPENSTOREKIT_LOG_LEVEL"
    /// Where `storekit serve` sends App Store Server Notifications (`--notification-url`): URLs for every app or
    /// `BUNDLE_ID=URL`, separated by spaces or commas.
    public static let notificationURL = "OPENSTOREKIT_NOTIFICATION_URL"
    /// How many seconds `storekit serve` waits for an app server's answer to a notification (`--notification-timeout`).
    public static let notificationTimeout = "OPENSTOREKIT_NOTIFICATION_TIMEOUT"
    /// The apps' `verifyReceipt` shared secrets for `storekit serve` (`--shared-secret`): `BUNDLE_ID=SECRET`, separated
    /// by spaces or commas.
    public static let sharedSecret = "OPENSTOREKIT_SHARED_SECRET"
    /// The XDG base directory the default data directory lives under on Linux.
    public static let xdgDataHome = "XDG_DATA_HOME"

    /// A variable's value, or `nil` when it is unset or empty.
    public static func value(_ name: String, in environment: [String: String]) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// The items of a list variable, separated by spaces, newlines or commas; `nil` when it is unset or empty.
    public static func list(_ name: String, in environment: [String: String]) -> [String]? {
        guard let value = value(name, in: environment) else { return nil }
        let items = value.split { $0 == "," || $0.isWhitespace }.map(String.init)
        return items.isEmpty ? nil : items
    }
}
