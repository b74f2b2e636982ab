public import Foundation

extension StoreDataDirectory {
    /// The file that holds the identifier of this machine's simulated device.
    public var currentDeviceFileURL: URL {
        url.appendingPathComponent("devices", isDirectory: true).appendingPathComponent("current")
    }

    /// The simulated device app processes run as: `OPENSTOREKIT_DEVICE_ID` when set, else the identifier kept in
    /// `devices/current`, created on first use so every later launch is the same device.
    ///
    /// - Throws: when `OPENSTOREKIT_DEVICE_ID` is not a UUID, or the identifier cannot be read or written.
    public func currentDeviceID(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> UUID {
        if let text = EnvironmentVariables.value(EnvironmentVariables.deviceID, in: environment) {
            guard let id = UUID(uuidString: text) else {
                throw CocoaError(.coderInvalidValue, userInfo: [
                    NSLocalizedDescriptionKey: "\(EnvironmentVariables.deviceID)=\(text) is not a UUID. Set it to a value such as \(UUID().uuidString), or unset it.",
                ])
            }
            return id
        }
        let file = currentDeviceFileURL
        if let id = Self.readDeviceID(file) { return id }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Another process may create the file at the same moment: never overwrite, then read whichever won.
        try? Data(UUID().uuidString.utf8).write(to: file, options: .withoutOverwriting)
        guard let id = Self.readDeviceID(file) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [
                NSLocalizedDescriptionKey: "\(file.path) does not hold a device identifier. Delete it; the next launch creates a new device.",
            ])
        }
        return id
    }

    /// The directory where a device keeps the state of one app: `devices/<device>/<bundle ID>`.
    public func appDirectoryURL(deviceID: UUID, bundleID: String) -> URL {
        deviceURL(deviceID).appendingPathComponent(bundleID, isDirectory: true)
    }

    /// Where a device keeps an app's receipt (the file `Bundle.appStoreReceiptURL` names on Apple platforms):
    /// `devices/<device>/<bundle ID>/StoreKit/receipt`.
    public func receiptURL(deviceID: UUID, bundleID: String) -> URL {
        appDirectoryURL(deviceID: deviceID, bundleID: bundleID).appendingPathComponent(Self.receiptPath)
    }

    /// The receipt's path inside an app's directory on a device.
    public static let receiptPath = "StoreKit/receipt"

    private static func readDeviceID(_ file: URL) -> UUID? {
        guard let data = try? Data(contentsOf: file) else { return nil }
        return UUID(uuidString: String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
