/** Two addresses are one mailbox to us: compared trimmed and without case (as every store keeps `email_lower`). */
export const sameEmail = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The domain of an address, lower case: what DKIM, SPF and the admin's domain lists are compared with. */
export const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();
