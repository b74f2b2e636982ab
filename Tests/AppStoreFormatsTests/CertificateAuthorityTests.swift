import Crypto
import Dispatch
import Foundation
import Synchronization
import Testing
import X509

@testable import AppStoreFormats
import SwiftASN1

@Suite("Certificate authority")
struct CertificateAuthorityTests {
    @Test func loadOrCreateTwiceReturnsTheSameCertificates() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let caDirectory = directory.appendingPathComponent("data/ca")
            let first = try CertificateAuthority.loadOrCreate(in: caDirectory, issuedAt: Fixtures.now)
            let second = try CertificateAuthority.loadOrCreate(in: caDirectory, issuedAt: Fixtures.now)
            #expect(first.rootCertificatesDER == second.rootCertificatesDER)
            #expect(first.jwsChain == second.jwsChain)
            #expect(first.receiptChain == second.receiptChain)
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: caDirectory.path)) == Set(CertificateAuthority.pemFileNames))

            // A token signed by the first instance verifies with roots from the second.
            let token = try JWSSigner(certificateAuthority: first).sign(Samples.transaction(.consumable))
            let verifier = try JWSVerifier(rootCertificates: second.rootCertificatesDER)
            try requireSuccess(await verifier.verifyTransaction(token))
        }
    }

    @Test("Threads installing and loading one directory at the same moment all end with the one authority that won; none sees it half there")
    func concurrentInstallsAndLoadsAgree() async throws {
        let candidates = try (0..<3).map { _ in try CertificateAuthority(issuedAt: Fixtures.now) }
        try await Fixtures.withTemporaryDirectory { directory in
            for round in 0..<30 {
                let caDirectory = directory.appendingPathComponent("round-\(round)/ca")
                // Threads, not tasks: the readers must really run while an installer renames its directory into place.
                let outcomes = Mutex<[Result<[Data], any Error>]>([])
                let done = DispatchGroup()
                func spawn(_ body: @escaping @Sendable () throws -> [Data]?) {
                    done.enter()
                    Thread {
                        do { if let roots = try body() { outcomes.withLock { $0.append(.success(roots)) } } }
                        catch { outcomes.withLock { $0.append(.failure(error)) } }
                        done.leave()
                    }.start()
                }
                for candidate in candidates {
                    spawn { try CertificateAuthority.install(candidate, in: caDirectory).rootCertificatesDER }
                    // A reader that keeps looking while the installers race: it finds nothing, or the whole authority.
                    spawn {
                        for _ in 0..<20_000 {
                            if let loaded = try CertificateAuthority.loadIfPresent(from: caDirectory) { return loaded.rootCertificatesDER }
                        }
                        return nil
                    }
                }
                done.wait()
                let roots = try outcomes.withLock { try Set($0.map { try $0.get() }) }
                #expect(roots.count == 1, "round \(round): \(roots.count) different authorities")
                #expect(try CertificateAuthority.loadIfPresent(from: caDirectory)?.rootCertificatesDER == roots.first)
            }
        }
    }

    @Test func privateKeysAreWrittenOwnerOnly() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let caDirectory = directory.appendingPathComponent("ca")
            _ = try CertificateAuthority.loadOrCreate(in: caDirectory)
            for name in CertificateAuthority.pemFileNames {
                let attributes = try FileManager.default.attributesOfItem(atPath: caDirectory.appendingPathComponent(name).path)
                let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
                #expect(mode == (name.hasSuffix("-key.pem") ? 0o600 : 0o644), "\(name)")
            }
        }
    }

    @Test func incompleteDirectoryIsRejectedInsteadOfReplaced() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let caDirectory = directory.appendingPathComponent("ca")
            _ = try CertificateAuthority.loadOrCreate(in: caDirectory)
            try FileManager.default.removeItem(at: caDirectory.appendingPathComponent("jws-leaf-key.pem"))
            #expect(throws: FormatError.fileSystem) { try CertificateAuthority.loadOrCreate(in: caDirectory) }
        }
    }

    @Test func pemFilesRoundTrip() throws {
        let authority = TestAuthority.shared
        let copy = try CertificateAuthority(pemFiles: try authority.pemFiles)
        #expect(copy.rootCertificatesDER == authority.rootCertificatesDER)
        #expect(copy.jwsChain.derEncoded == authority.jwsChain.derEncoded)
        #expect(copy.receiptChain.derEncoded == authority.receiptChain.derEncoded)
    }

    @Test func mismatchedKeyIsRejected() throws {
        var files = TestAuthority.pemFiles
        // Swap the two P-384 keys: each no longer matches its certificate.
        files["jws-root-key.pem"] = TestAuthority.pemFiles["jws-intermediate-key.pem"]
        files["jws-intermediate-key.pem"] = TestAuthority.pemFiles["jws-root-key.pem"]
        #expect(throws: FormatError.malformedKey) { try CertificateAuthority(pemFiles: files) }
        files.removeValue(forKey: "jws-root-key.pem")
        #expect(throws: FormatError.malformedData) { try CertificateAuthority(pemFiles: files) }
    }

    @Test func certificatesHaveApplesShapeAndCoverTheVirtualClockRange() throws {
        let authority = TestAuthority.shared
        let markers = ["1.2.840.113635.100.6.2.1", "1.2.840.113635.100.6.11.1"]
        for chain in [authority.jwsChain, authority.receiptChain] {
            for certificate in chain.certificates {
                #expect(certificate.version == .v3)
                #expect(certificate.notValidBefore <= CertificateAuthority.defaultValidity.lowerBound)
                #expect(certificate.notValidAfter >= CertificateAuthority.defaultValidity.upperBound)
                let basicConstraints = try #require(certificate.extensions.first { $0.oid == .X509ExtensionID.basicConstraints })
                #expect(basicConstraints.critical)
                let keyUsage = try #require(certificate.extensions.first { $0.oid == .X509ExtensionID.keyUsage })
                #expect(keyUsage.critical)
                #expect(try certificate.extensions.subjectKeyIdentifier != nil)
                for marker in certificate.extensions where markers.contains(marker.oid.description) {
                    #expect(!marker.critical)
                    #expect(Array(marker.value) == [0x05, 0x00])
                }
            }
            #expect(try chain.leaf.extensions.basicConstraints == .notCertificateAuthority)
            #expect(try chain.intermediate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
            #expect(try chain.leaf.extensions.authorityKeyIdentifier?.keyIdentifier == chain.intermediate.extensions.subjectKeyIdentifier?.keyIdentifier)
            #expect(try chain.intermediate.extensions.authorityKeyIdentifier?.keyIdentifier == chain.root.extensions.subjectKeyIdentifier?.keyIdentifier)
            #expect(chain.leaf.hasExtension(OID.appleLeafMarker))
            #expect(chain.intermediate.hasExtension(OID.appleIntermediateMarker))
            #expect(chain.root.subject.description.contains("OpenStoreKit"))
        }
        #expect(P256.Signing.PublicKey(authority.jwsChain.leaf.publicKey) != nil)
    }

    @Test func rootBundleHoldsBothRoots() throws {
        let authority = TestAuthority.shared
        let pem = authority.rootCertificatesPEM
        #expect(pem.components(separatedBy: "-----BEGIN CERTIFICATE-----").count == 3)
        let parsed = try PEMBlocks.certificates(in: pem)
        #expect(parsed == authority.rootCertificatesDER)
    }

    @Test(arguments: [
        ("jws", "2000-01-01T00:00:00Z"), ("jws", "2025-06-01T12:00:00Z"), ("jws", "2099-12-31T23:59:58Z"),
        ("receipt", "2000-01-01T00:00:00Z"), ("receipt", "2025-06-01T12:00:00Z"), ("receipt", "2099-12-31T23:59:58Z"),
    ])
    func freshChainPassesOpenSSLStrictVerification(chain: String, at date: String) async throws {
        let authority = try await FreshAuthority.shared.value
        try await Fixtures.withTemporaryDirectory { directory in
            try authority.write(to: directory)
            let seconds = Int(try #require(ReceiptDate.date(from: date)).timeIntervalSince1970)
            let output = try await ExternalTools.openssl([
                "verify", "-x509_strict", "-attime", String(seconds),
                "-CAfile", directory.appendingPathComponent("\(chain)-root.pem").path,
                "-untrusted", directory.appendingPathComponent("\(chain)-intermediate.pem").path,
                directory.appendingPathComponent("\(chain)-leaf.pem").path,
            ])
            #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
        }
    }
}

/// One freshly generated authority shared by the tests that check generation itself.
enum FreshAuthority {
    static let shared = Task { try CertificateAuthority(issuedAt: Fixtures.now, subjectPrefix: "OpenStoreKit Test") }
}

enum PEMBlocks {
    static func certificates(in text: String) throws -> [Data] {
        var result: [Data] = []
        var body: String?
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("-----BEGIN") {
                body = ""
            } else if line.hasPrefix("-----END") {
                result.append(try #require(Data(base64Encoded: body ?? "")))
                body = nil
            } else if body != nil {
                body! += line
            }
        }
        return result
    }
}

/// The success value of a verification, or a recorded issue and a thrown failure.
@discardableResult
func requireSuccess<Value, Failure: Error>(
    _ result: Result<Value, Failure>, sourceLocation: SourceLocation = #_sourceLocation
) throws -> Value {
    switch result {
    case .success(let value):
        return value
    case .failure(let failure):
        Issue.record("Verification failed: \(failure)", sourceLocation: sourceLocation)
        throw failure
    }
}

/// The failure of a verification that should have failed.
func requireFailure<Value, Failure: Error>(
    _ result: Result<Value, Failure>, sourceLocation: SourceLocation = #_sourceLocation
) throws -> Failure {
    switch result {
    case .success:
        Issue.record("Verification unexpectedly succeeded", sourceLocation: sourceLocation)
        throw ExternalTools.ToolFailure(message: "unexpected success")
    case .failure(let failure):
        return failure
    }
}
