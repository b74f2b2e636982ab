@testable import AppStoreServer
import AppStoreFormats
import Foundation
import SwiftASN1
import Testing
@_spi(FixedExpiryValidationTime) import X509

@Suite("The TLS root and the server certificate it issues for Apple's hosts")
struct TLSAuthorityTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    let hosts = AppleHosts.all + AppleHosts.loopback

    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)/tls", isDirectory: true)
    }

    /// Verifies `leaf` for `hostname` (or `address`) against `roots`, as a TLS client would at `time`.
    func verify(_ leaf: Certificate, roots: [Certificate], hostname: String? = nil, address: String? = nil, at time: Date) async -> Bool {
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            ServerIdentityPolicy(serverHostname: hostname, serverIP: address)
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(), diagnosticCallback: nil)
        if case .validCertificate = result { return true }
        return false
    }

    @Test("The server certificate verifies for every Apple host, localhost and the loopback addresses, and for no other name")
    func namesEveryHost() async throws {
        let authority = try TLSAuthority(now: now)
        let identity = try authority.issueServerIdentity(hosts: hosts, now: now)
        #expect(identity.hosts == Set(hosts))
        for host in AppleHosts.all + ["localhost"] {
            #expect(await verify(identity.certificate, roots: [authority.root], hostname: host, at: now), "\(host)")
        }
        #expect(await verify(identity.certificate, roots: [authority.root], address: "127.0.0.1", at: now))
        #expect(await verify(identity.certificate, roots: [authority.root], address: "::1", at: now))
        #expect(!(await verify(identity.certificate, roots: [authority.root], hostname: "example.com", at: now)))
        #expect(!(await verify(identity.certificate, roots: [authority.root], address: "10.0.0.1", at: now)))
        let usage = try #require(try identity.certificate.extensions.extendedKeyUsage)
        #expect(usage.contains(.serverAuth))
        #expect(try identity.certificate.extensions.basicConstraints == .notCertificateAuthority)
        // Apple's platforms refuse TLS certificates valid for more than 398 days.
        #expect(identity.certificate.notValidAfter.timeIntervalSince(identity.certificate.notValidBefore) <= 398 * 86_400)
    }

    @Test("Trust is separate: the TLS root verifies no signed payload's chain, and the signing roots verify no TLS server")
    func separateFromSigningRoots() async throws {
        let tls = try TLSAuthority(now: now)
        let identity = try tls.issueServerIdentity(hosts: hosts, now: now)
        let signing = try CertificateAuthority(issuedAt: now)
        let signingRoots = try signing.rootCertificatesDER.map { try Certificate(derEncoded: Array($0)) }
        #expect(!(await verify(identity.certificate, roots: signingRoots, hostname: AppleHosts.serverAPISandbox, at: now)))
        var verifier = Verifier(rootCertificates: CertificateStore([tls.root])) { RFC5280Policy(fixedExpiryValidationTime: now) }
        let jwsLeaf = try Certificate(derEncoded: Array(signing.jwsChain.derEncoded[0]))
        let jwsIntermediate = try Certificate(derEncoded: Array(signing.jwsChain.derEncoded[1]))
        let result = await verifier.validate(leaf: jwsLeaf, intermediates: CertificateStore([jwsIntermediate]), diagnosticCallback: nil)
        guard case .couldNotValidate = result else {
            Issue.record("the TLS root vouched for the JWS signing chain")
            return
        }
    }

    @Test("loadOrCreate keeps the root and the certificate across runs, and issues a new certificate for a new name or a near end")
    func persistence() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let first = try TLSAuthority.loadOrCreate(in: directory, hosts: hosts, now: now)
        let again = try TLSAuthority.loadOrCreate(in: directory, hosts: hosts, now: now.addingTimeInterval(86_400))
        #expect(again.authority.root == first.authority.root)
        #expect(again.identity.certificate == first.identity.certificate)
        let keyMode = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(TLSAuthority.FileName.rootKey).path)[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        let serverMode = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(TLSAuthority.FileName.server).path)[.posixPermissions] as? Int
        #expect(serverMode == 0o600)

        let widened = try TLSAuthority.loadOrCreate(in: directory, hosts: hosts + ["storekit.internal"], now: now)
        #expect(widened.authority.root == first.authority.root)
        #expect(widened.identity.certificate != first.identity.certificate)
        #expect(widened.identity.hosts.contains("storekit.internal"))

        // 380 days on, 17 are left: the certificate is issued again, by the same root.
        let later = now.addingTimeInterval(380 * 86_400)
        let renewed = try TLSAuthority.loadOrCreate(in: directory, hosts: hosts, now: later)
        #expect(renewed.authority.root == first.authority.root)
        #expect(renewed.identity.certificate.notValidAfter > later.addingTimeInterval(300 * 86_400))
    }

    @Test("A damaged or expired root stops with the directory's name and what to do, and is never replaced silently")
    func damagedOrExpiredRoot() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let made = try TLSAuthority.loadOrCreate(in: directory, hosts: hosts, now: now)

        let expired = #expect(throws: TLSAuthorityError.self) {
            try TLSAuthority.loadOrCreate(in: directory, hosts: hosts, now: now.addingTimeInterval(11 * 365 * 86_400))
        }
        #expect(expired?.message.contains("expires") == true)
        #expect(expired?.message.contains(directory.path) == true)

        let keyFile = directory.appendingPathComponent(TLSAuthority.FileName.rootKey)
        try Data("not a key".utf8).write(to: keyFile)
        let damaged = #expect(throws: TLSAuthorityError.self) {
            try TLSAuthority.loadOrCreate(in: directory, hosts: hosts, now: now)
        }
        #expect(damaged?.message.contains("Delete the directory") == true, "\(damaged?.message ?? "")")
        #expect(try String(contentsOf: directory.appendingPathComponent(TLSAuthority.FileName.root), encoding: .utf8) == (try made.authority.rootPEM))
    }

    @Test("A missing server certificate is issued again from the kept root")
    func missingServerCertificate() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let made = try TLSAuthority.loadOrCreate(in: directory, hosts: hosts, now: now)
        try FileManager.default.removeItem(at: directory.appendingPathComponent(TLSAuthority.FileName.server))
        let again = try TLSAuthority.loadOrCreate(in: directory, hosts: hosts, now: now)
        #expect(again.authority.root == made.authority.root)
        #expect(made.authority.canServe(again.identity, hosts: hosts, now: now))
    }
}
