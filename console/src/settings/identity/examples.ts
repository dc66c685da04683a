// The same lines as the README's "Signed-in customers on any device" (examples.test.ts holds them to it).
export const EXAMPLES = [
  ['Node', "crypto.createHmac('sha256', process.env.TICKETING_IDENTITY_SECRET).update(user.email).digest('hex');"],
  ['PHP', "hash_hmac('sha256', $user->email, getenv('TICKETING_IDENTITY_SECRET'));"],
  [
    'Python',
    "hmac.new(os.environ['TICKETING_IDENTITY_SECRET'].encode(), user.email.encode(), hashlib.sha256).hexdigest()",
  ],
] as const;
export const SNIPPET =
  "Ticketing('identify', { email: 'ada@example.com', name: 'Ada', signature: '<from your server>' });";
