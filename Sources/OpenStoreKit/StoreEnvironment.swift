public import AppStoreEngine
import AppStoreHosting
#if SQLite
import AppStoreSQLite
#endif
public import Foundation
import StoreKitConfiguration

/// Everything a payment queue needs to act as one app on one device: the store it talks to, the customer's
/// account, the app's bundle identifier, the device, and the directory where the device keeps the app's
/// StoreKit state (receipt, storefront, promotion overrides, downloaded content).
///
/// `SKPaymentQueue.default()` builds one from the process environment with ``fromProcessEnvironment(_:)``;
/// `SKTestSession` builds one per session. Pass one to `SKPaymentQueue(environment:callbackQueue:)` for a
/// queue of your own.
public struct StoreEnvironment: Sendable {
    /// The store.
    public var connection: any StoreConnection
    /// The customer's App Store account.
    public var accountID: String
    /// The app's bundle identifier.
    public var bundleID: String
    /// The device the app runs on.
    public var deviceID: UUID
    /// The device's directory for this app: `StoreKit/receipt`, `StoreKit/state.json`, `Downloads/`.
    public var appDirectory: URL
    /// The storefront new accounts start in (the configuration's): what the queue reports before it first looked
    /// at the customer's account.
    public var defaultStorefront: String
    /// Whether StoreKit 2's transaction history (`Transaction.all`, `Transaction.all(for:)`,
    /// `Transaction.latest(for:)`, `Product.latestTransaction`) keeps consumables the app finished: the app's
    /// `SKIncludeConsumableInAppPurchaseHistory` Info.plist key. When `false`, as by default on iOS, a finished
    /// consumable leaves the history unless it was refunded or revoked.
    public var includesConsumableInAppPurchaseHistory: Bool

    /// Describes an environment. ``includesConsumableInAppPurchaseHistory`` is by default what the main bundle's
    /// Info.plist says (``infoPlistIncludesConsumableInAppPurchaseHistory``).
    public init(
        connection: any StoreConnection, accountID: String = StoreDefaults.accountID, bundleID: String, deviceID: UUID,
        appDirectory: URL, defaultStorefront: String = StoreSettings().storefront,
        includesConsumableInAppPurchaseHistory: Bool = StoreEnvironment.infoPlistIncludesConsumableInAppPurchaseHistory
    ) {
        self.connection = connection
        self.accountID = accountID
        self.bundleID = bundleID
        self.deviceID = deviceID
        self.appDirectory = appDirectory
        self.defaultStorefront = defaultStorefront
        self.includesConsumableInAppPurchaseHistory = includesConsumableInAppPurchaseHistory
    }

    /// The Boolean `SKIncludeConsumableInAppPurchaseHistory` of the main bundle's Info.plist, `false` when absent. On
    /// Linux, `Bundle.main` is the executable's directory, and Foundation reads the `Info.plist` next to the
    /// executable or in a `Resources` folder there.
    public static var infoPlistIncludesConsumableInAppPurchaseHistory: Bool {
        Bundle.main.object(forInfoDictionaryKey: "SKIncludeConsumableInAppPurchaseHistory") as? Bool ?? false
    }

    /// How often an app process looks for changes made by other processes (`storekit` commands) to its store.
    public static let sharedStorePollInterval: Duration = .milliseconds(250)

    /// The environment an app process is configured for by its environment variables (`EnvironmentVariables` in `AppStoreHosting`).
    ///
    /// - `OPENSTOREKIT_SERVER`: the URL of a running `storekit serve`; the app uses that server's store over HTTP
    ///   (``HTTPStoreConnection``), and `OPENSTOREKIT_CONFIG` is not needed.
    /// - `OPENSTOREKIT_CONFIG`, without a server: the `.storekit` file; its products and settings make an in-process store.
    /// - `OPENSTOREKIT_DATA_DIR`: where the store (in-process) and the device keep their state (see `StoreDataDirectory`);
    ///   `storekit --data-dir` reads the same directory.
    /// - `OPENSTOREKIT_TENANT`: the isolated store inside the data directory or on the server, else `default`
    ///   (`storekit --tenant`, the server's `/t/{tenant}/`).
    /// - `OPENSTOREKIT_BUNDLE_ID`: the app's bundle identifier, else `Bundle.main`'s, else `com.example.app`.
    /// - `OPENSTOREKIT_ACCOUNT`: the customer's account, else `default`.
    /// - `OPENSTOREKIT_DEVICE_ID`: the device, else the data directory's own device.
    /// - `OPENSTOREKIT_HOSTED_CONTENT`: a folder of hosted content packages.
    ///
    /// - Throws: ``EnvironmentError`` saying which variable to set or fix.
    public static func fromProcessEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(EnvironmentError) -> StoreEnvironment {
        let variables = EnvironmentVariables.self
        let directory = StoreDataDirectory.resolve(environment: environment)
        let tenant = variables.value(variables.tenant, in: environment) ?? StoreDefaults.tenant
        let hostedContent = variables.value(variables.hostedContent, in: environment).map { URL(fileURLWithPath: $0, isDirectory: true) }
        let connection: any StoreConnection
        var defaultStorefront = StoreSettings().storefront
        if let address = variables.value(variables.server, in: environment) {
            guard let server = URL(string: address), ["http", "https"].contains(server.scheme ?? ""), server.host != nil else {
                throw .invalidServer("\(variables.server)=\(address) is not a server URL. Set it to the address `storekit serve` prints, such as http://127.0.0.1:8080.")
            }
            connection = HTTPStoreConnection(baseURL: HTTPStoreConnection.storeURL(server: server, tenant: tenant), hostedContentDirectory: hostedContent)
        } else {
            guard let path = variables.value(variables.configuration, in: environment) else {
                throw .missingConfiguration("OpenStoreKit has no store to talk to. Set \(variables.configuration) to a .storekit file (and optionally \(variables.dataDirectory) to a directory for the store's state), set \(variables.server) to a running `storekit serve`, or create an SKTestSession.")
            }
            let configuration: StoreKitConfigurationFile
            do {
                configuration = try StoreKitConfigurationFile.load(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw .invalidConfiguration("\(variables.configuration)=\(path) is not a usable StoreKit configuration: \(error.description)")
            }
            #if SQLite
            StoreFactory.register(SQLiteDatabase())
            let engine: StoreEngine
            do {
                engine = try StoreFactory.open(StoreSpecification(location: .dataDirectory(directory), configuration: configuration, tenant: tenant))
            } catch {
                throw .unusableDataDirectory("Cannot use the data directory \(directory.url.path): \(error). Set \(variables.dataDirectory) to a writable directory.")
            }
            connection = InProcessConnection(engine: engine, hostedContentDirectory: hostedContent, pollInterval: sharedStorePollInterval)
            defaultStorefront = StoreSettings(configuration: configuration).storefront
            #else
            throw .invalidConfiguration(
                "\(variables.configuration) asks for a store in the data directory, kept in SQLite, but OpenStoreKit was built without its SQLite trait. Depend on the package with its default traits, or set \(variables.server) to a running `storekit serve` instead."
            )
            #endif
        }
        let deviceID: UUID
        do {
            deviceID = try directory.currentDeviceID(environment: environment)
        } catch {
            throw .unusableDataDirectory("Cannot use the data directory \(directory.url.path): \(error). Set \(variables.dataDirectory) to a writable directory.")
        }
        let bundleID = resolveBundleID(environment)
        return StoreEnvironment(
            connection: connection,
            accountID: variables.value(variables.account, in: environment) ?? StoreDefaults.accountID,
            bundleID: bundleID, deviceID: deviceID,
            appDirectory: directory.appDirectoryURL(deviceID: deviceID, bundleID: bundleID),
            defaultStorefront: defaultStorefront
        )
    }

    /// The app's bundle identifier: `OPENSTOREKIT_BUNDLE_ID`, else `Bundle.main.bundleIdentifier`, else
    /// `com.example.app`.
    public static func resolveBundleID(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let bundleID = EnvironmentVariables.value(EnvironmentVariables.bundleID, in: environment) { return bundleID }
        if let bundleID = Bundle.main.bundleIdentifier, !bundleID.isEmpty { return bundleID }
        return StoreDefaults.bundleID
    }

    /// The app's version the store puts in its receipts: `CFBundleVersion`, else `1`.
    static var appVersion: String {
        Bundle.main.object(forInfoDictionaryKey: "CFBundleVersion") as? String ?? "1"
    }

    /// Where the device keeps the app's receipt.
    var receiptURL: URL { appDirectory.appendingPathComponent(StoreDataDirectory.receiptPath) }
}

/// An app process's StoreKit environment variables do not describe a usable store.
///
/// Compare with the static members (`error == .missingConfiguration`); equality ignores ``message``, which names
/// the variable to set or fix.
public struct EnvironmentError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    private enum Code: Hashable, Sendable {
        case missingConfiguration
        case invalidConfiguration
        case unusableDataDirectory
        case invalidServer
    }

    private let code: Code

    /// What is wrong and which variable to set.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `OPENSTOREKIT_CONFIG` is not set and no `SKTestSession` serves the process.
    public static let missingConfiguration = EnvironmentError(.missingConfiguration, "No StoreKit configuration is set.")
    /// `OPENSTOREKIT_CONFIG` names a file that is missing or not a valid `.storekit` file.
    public static let invalidConfiguration = EnvironmentError(.invalidConfiguration, "The StoreKit configuration is not usable.")
    /// The data directory cannot hold the store or the device.
    public static let unusableDataDirectory = EnvironmentError(.unusableDataDirectory, "The data directory is not usable.")
    /// `OPENSTOREKIT_SERVER` is not an `http` or `https` URL.
    public static let invalidServer = EnvironmentError(.invalidServer, "The server URL is not usable.")

    static func missingConfiguration(_ message: String) -> EnvironmentError { EnvironmentError(.missingConfiguration, message) }
    static func invalidConfiguration(_ message: String) -> EnvironmentError { EnvironmentError(.invalidConfiguration, message) }
    static func unusableDataDirectory(_ message: String) -> EnvironmentError { EnvironmentError(.unusableDataDirectory, message) }
    static func invalidServer(_ message: String) -> EnvironmentError { EnvironmentError(.invalidServer, message) }

    /// The message.
    public var description: String { message }
    /// The message.
    public var errorDescription: String? { message }

    /// Errors are equal when they are of the same kind, whatever their messages.
    public static func == (lhs: EnvironmentError, rhs: EnvironmentError) -> Bool { lhs.code == rhs.code }

    /// Hashes the kind of error.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
