import AppStoreEngine
import AppStoreHosting
import Foundation
import StoreKitConfiguration
import Testing
import AppStoreFormats

@Suite("Opening stores")
struct StoreFactoryTests {
    init() { StoreFactory.registerTestDatabases() }

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-hosting-\(UUID().uuidString)")
    let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/Demo.storekit")

    @Test("A data directory's device keeps its identifier across launches unless the environment names one")
    func currentDevice() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = StoreDataDirectory(url: directory)
        let first = try data.currentDeviceID(environment: [:])
        #expect(try data.currentDeviceID(environment: [:]) == first)
        let named = UUID()
        #expect(try data.currentDeviceID(environment: [EnvironmentVariables.deviceID: named.uuidString]) == named)
        #expect(throws: (any Error).self) { try data.currentDeviceID(environment: [EnvironmentVariables.deviceID: "not-a-uuid"]) }
        #expect(data.receiptURL(deviceID: first, bundleID: "com.example.app").path.hasSuffix("devices/\(first.uuidString)/com.example.app/StoreKit/receipt"))
    }

    @Test("The data directory comes from the explicit path, then OPENSTOREKIT_DATA_DIR, then XDG_DATA_HOME, then HOME")
    func dataDirectoryResolution() {
        #expect(StoreDataDirectory.resolve(explicit: "/x", environment: [EnvironmentVariables.dataDirectory: "/y"]).url.path == "/x")
        #expect(StoreDataDirectory.resolve(environment: [EnvironmentVariables.dataDirectory: "/y", "HOME": "/h"]).url.path == "/y")
        #if !os(macOS)
        #expect(StoreDataDirectory.resolve(environment: [EnvironmentVariables.xdgDataHome: "/xdg", "HOME": "/h"]).url.path == "/xdg/openstorekit")
        #expect(StoreDataDirectory.resolve(environment: ["HOME": "/h"]).url.path == "/h/.local/share/openstorekit")
        #endif
        #expect(StoreDataDirectory.resolve(environment: [EnvironmentVariables.dataDirectory: "", "HOME": "/h"]).url.path != "")
    }

    @Test("Stores opened on one data directory share purchases per tenant and keep one certificate authority")
    func dataDirectoryStoresAreShared() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try StoreKitConfigurationFile.load(contentsOf: demo)
        let location = StoreLocation.dataDirectory(StoreDataDirectory(url: directory))
        let seller = try StoreFactory.open(StoreSpecification(location: location, configuration: configuration))
        let reader = try StoreFactory.open(StoreSpecification(location: location))
        let otherTenant = try StoreFactory.open(StoreSpecification(location: location, tenant: "other"))
        let productID = try #require(await seller.catalog.products.first { $0.type == .nonConsumable }?.id)
        let bought = try await seller.purchase(PurchaseRequest(productID: productID, accountID: "ana", bundleID: "app"))
        #expect(try await reader.transaction(bought.id) == bought)
        #expect(try await otherTenant.transactions().isEmpty)
        #expect(await reader.catalog.products.isEmpty)
        let sellerRoot = try seller.signer.certificateAuthority.jwsChain.derEncoded.last
        let readerRoot = try reader.signer.certificateAuthority.jwsChain.derEncoded.last
        #expect(sellerRoot != nil && sellerRoot == readerRoot)
        #expect(FileManager.default.fileExists(atPath: StoreDataDirectory(url: directory).databaseURL.path))
    }

    @Test("Stores in memory share nothing, with each other or the disk")
    func memoryStoresAreIsolated() async throws {
        let configuration = try StoreKitConfigurationFile.load(contentsOf: demo)
        let first = try StoreFactory.open(StoreSpecification(location: .memory, configuration: configuration))
        let second = try StoreFactory.open(StoreSpecification(location: .memory, configuration: configuration))
        let productID = try #require(await first.catalog.products.first?.id)
        _ = try await first.purchase(PurchaseRequest(productID: productID, accountID: "ana", bundleID: "app"))
        #expect(try await second.transactions().isEmpty)
        #expect(await first.settings == StoreSettings(configuration: configuration))
    }

    @Test("A data directory that cannot hold a database gives an error naming it")
    func unusableDirectory() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("a file where the database should be".utf8).write(to: directory.appendingPathComponent("store.sqlite"))
        #expect {
            _ = try StoreFactory.open(StoreSpecification(location: .dataDirectory(StoreDataDirectory(url: directory))))
        } throws: { error in
            String(describing: error).contains(directory.path)
        }
    }
}
