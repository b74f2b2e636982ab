import AppStoreEngine
import AppStoreSQLite
import Foundation
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

    /// Describes an environment.
    public init(connection: any StoreConnection, accountID: String = defaultAccountID, bundleID: String, deviceID: UUID, appDirectory: URL) {
        self.connection = connection
        self.accountID = accountID
        self.bundleID = bundleID
        self.deviceID = deviceID
        self.appDirectory = appDirectory
    }

    /// The environment variable naming the `.storekit` file an app process's store sells from — the
    /// counterpart of Xcode's "StoreKit Configuration" scheme option.
    public static let configurationVariable = "OPENSTOREKIT_CONFIG"
    /// The environment variable naming the app's bundle identifier.
    public static let bundleIDVariable = "OPENSTOREKIT_BUNDLE_ID"
    /// The environment variable naming the customer's account (default `default`).
    public static let accountVariable = "OPENSTOREKIT_ACCOUNT"
    /// The environment variable naming a folder of hosted content packages, one `<product ID>/` folder each.
    public static let hostedContentVariable = "OPENSTOREKIT_HOSTED_CONTENT"

    /// How often an app process looks for changes made by other processes (`storekit` commands) to its store.
    public static let sharedStorePollInterval: Duration = .milliseconds(250)

    /// The environment an app process is configured for by its environment variables.
    ///
    /// - `OPENSTOREKIT_CONFIG` (required): the `.storekit` file; its products and settings make an in-process store.
    /// - `OPENSTOREKIT_DATA_DIR`: where the store and the device keep their state (see `StoreDataDirectory`);
    ///   `storekit --data-dir` reads the same directory, store `default`.
    /// - `OPENSTOREKIT_BUNDLE_ID`: the app's bundle identifier, else `Bundle.main`'s, else `com.example.app`.
    /// - `OPENSTOREKIT_ACCOUNT`: the customer's account, else `default`.
    /// - `OPENSTOREKIT_DEVICE_ID`: the device, else the data directory's own device.
    /// - `OPENSTOREKIT_HOSTED_CONTENT`: a folder of hosted content packages.
    ///
    /// - Throws: ``EnvironmentError`` saying which variable to set or fix.
    public static func fromProcessEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(EnvironmentError) -> StoreEnvironment {
        guard let path = environment[configurationVariable], !path.isEmpty else {
            throw EnvironmentError("OpenStoreKit has no store to talk to. Set \(configurationVariable) to a .storekit file (and optionally \(StoreDataDirectory.environmentVariable) to a directory for the store's state), or create an SKTestSession.")
        }
        let configuration: StoreKitConfigurationFile
        do {
            configuration = try StoreKitConfigurationFile.load(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw EnvironmentError("\(configurationVariable)=\(path) is not a usable StoreKit configuration: \(error.description)")
        }
        let directory = StoreDataDirectory.resolve(environment: environment)
        let storage: SQLiteStorage
        let signer: StoreSigner
        let deviceID: UUID
        do {
            storage = try directory.openStorage()
            signer = directory.signer
            deviceID = try directory.currentDeviceID(environment: environment)
        } catch {
            throw EnvironmentError("Cannot use the data directory \(directory.url.path): \(error). Set \(StoreDataDirectory.environmentVariable) to a writable directory.")
        }
        let engine = StoreEngine(
            catalog: Catalog(configuration: configuration), settings: StoreSettings(configuration: configuration),
            storage: storage, clock: SystemClock(), signer: signer
        )
        let hostedContent = environment[hostedContentVariable].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
        let bundleID = resolveBundleID(environment)
        return StoreEnvironment(
            connection: InProcessConnection(engine: engine, hostedContentDirectory: hostedContent, pollInterval: sharedStorePollInterval),
            accountID: environment[accountVariable].flatMap { $0.isEmpty ? nil : $0 } ?? defaultAccountID,
            bundleID: bundleID, deviceID: deviceID,
            appDirectory: directory.appDirectoryURL(deviceID: deviceID, bundleID: bundleID)
        )
    }

    /// The app's bundle identifier: `OPENSTOREKIT_BUNDLE_ID`, else `Bundle.main.bundleIdentifier`, else
    /// `com.example.app`.
    public static func resolveBundleID(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let bundleID = environment[bundleIDVariable], !bundleID.isEmpty { return bundleID }
        if let bundleID = Bundle.main.bundleIdentifier, !bundleID.isEmpty { return bundleID }
        return defaultBundleID
    }

    /// Where the device keeps the app's receipt.
    var receiptURL: URL { appDirectory.appendingPathComponent(StoreDataDirectory.receiptPath) }
}

/// An app process's StoreKit environment variables do not describe a usable store.
public struct EnvironmentError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// What is wrong and which variable to set.
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
    /// The message.
    public var errorDescription: String? { message }
}
