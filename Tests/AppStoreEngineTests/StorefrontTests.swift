import AppStoreEngine
import Foundation
import StoreKitConfiguration
import Testing

/// Every App Store storefront is known, so any account can buy in any country Apple sells in.
@Suite("Storefronts")
struct StorefrontTests {
    @Test("Apple's 184 storefronts are known, each with its own code and numeric identifier")
    func everyStorefront() {
        let storefronts = Array(Storefront.known.values)
        #expect(storefronts.count == 184)
        #expect(Set(storefronts.map(\.id)).count == storefronts.count)
        #expect(storefronts.allSatisfy { $0.countryCode.count == 3 && $0.currency.count == 3 && $0.id.count == 6 && $0.id.hasPrefix("143") })
        #expect(Storefront.named("USA") == Storefront(countryCode: "USA", id: "143441", currency: "USD"))
        #expect(Storefront.named("jpn")?.id == "143462")
        #expect(Storefront.named("ALB")?.id == "143575")
        #expect(Storefront.named("XKS")?.id == "143624")
        #expect(Storefront.named("NGA")?.currency == "NGN")
        #expect(Storefront.named("XXX") == nil)
    }

    @Test("Every storefront a real .storekit file names is known")
    func corpusStorefronts() throws {
        let repository = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let corpus = repository.deletingLastPathComponent().appending(path: "shared/corpus/storekit")
        let files = try FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "storekit" }
        #expect(!files.isEmpty)
        for file in files {
            let configuration = try StoreKitConfigurationFile.load(contentsOf: file)
            #expect(Storefront.named(configuration.settings.storefront) != nil, "\(file.lastPathComponent): \(configuration.settings.storefront)")
        }
    }
}
