/**
 * A self-signed certificate for tests only (CN 'switchyard test'; SAN images.test, *.images.test,
 * localhost, 127.0.0.1; valid until 2126). Its key is public on purpose: never trust it outside tests.
 */
export const testCertificate = `-----BEGIN CERTIFICATE-----
MIIBxTCCAWugAwIBAgIUJMDIiGvOH8vBvYIFC4yHkHP8IDQwCgYIKoZIzj0EAwIw
GjEYMBYGA1UEAwwPc3dpdGNoeWFyZCB0ZXN0MCAXDTI2MTEyMTE0MTAzMFoYDzIx
MjYxMDI4MTQxMDMwWjAaMRgwFgYDVQQDDA9zd2l0Y2h5YXJkIHRlc3QwWTATBgcq
hkjOPQIBBggqhkjOPQMBBwNCAAQtDkzO8y4RBdefWyJMJBqVmdlfoNGDrZBDRwiV
oIOcyfGnXuGHi2iApb2BcQDPwwHvMR+U+a32JcjGC9SBPWFbo4GMMIGJMB0GA1Ud
DgQWBBTWzVsY9ZxKmnuX8D1cRdIjqlOnTzAfBgNVHSMEGDAWgBTWzVsY9ZxKmnuX
8D1cRdIjqlOnTzAPBgNVHRMBAf8EBTADAQH/MDYGA1UdEQQvMC2CC2ltYWdlcy50
ZXN0gg0qLmltYWdlcy50ZXN0gglsb2NhbGhvc3SHBH8AAAEwCgYIKoZIzj0EAwID
SAAwRQIhANqpH7e7pFrWPR8tvrIlWJqd49orLttu6wVl9BOhswMSAiBHfiPVwRCn
2HEghOhYSxE3AXV8mnyaD/KWgI+S9YqMRg==
-----END CERTIFICATE-----
`;

export const testPrivateKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgVggAjP3hzJ1VIiev
bLZnoEIOdd5Pnb2NyEIQyH4o/8ihRANCAAQtDkzO8y4RBdefWyJMJBqVmdlfoNGD
rZBDRwiVoIOcyfGnXuGHi2iApb2BcQDPwwHvMR+U+a32JcjGC9SBPWFb
-----END PRIVATE KEY-----
`;
