# Interop driver for the Ruby oauth gem (OAuth::Consumer over Net::HTTP): runs the RFC 5849
# three-step flow against a Latchkey-shaped server, then calls /api/me with the awkward
# parameters.
#
# Usage: ruby ruby-oauth.rb BASE_URL; environment as in test/interop/README.md.
# The gem signs with HMAC-SHA1, RSA-SHA1 and PLAINTEXT and sends the protocol parameters in
# the header (scheme :header), the form body (:body) or the query (:query_string).
# A Hash given as the POST data is sent sorted (OAuth::Helper.normalize), so this driver
# passes the form as a string, which the gem parses back to sign (CGI.parse).
require 'json'
require 'oauth'
require 'oauth/signature/plaintext' # not loaded by default
require 'uri'

$stdout.sync = true

def emit(message)
  puts JSON.generate(message)
end

def result(response)
  body = begin
    JSON.parse(response.body.to_s)
  rescue JSON::ParserError
    response.body.to_s.dup.force_encoding(Encoding::UTF_8)
  end
  { status: response.code.to_i, body: body }
end

base = ARGV.fetch(0).chomp('/')
method = ENV['OAUTH_SIGNATURE_METHOD'].to_s.empty? ? 'HMAC-SHA1' : ENV['OAUTH_SIGNATURE_METHOD']
transmission = ENV['OAUTH_TRANSMISSION'].to_s.empty? ? 'header' : ENV['OAUTH_TRANSMISSION']
params = JSON.parse(ENV['INTEROP_PARAMS'] || '{"query":[],"form":[]}')
scope = ENV['INTEROP_SCOPE'].to_s

begin
  options = {
    site: base,
    request_token_path: '/oauth/request_token',
    access_token_path: '/oauth/access_token',
    authorize_path: '/oauth/authorize',
    http_method: :post,
    signature_method: method,
    scheme: { 'header' => :header, 'body' => :body, 'query' => :query_string }.fetch(transmission),
  }
  # RSA-SHA1: the :private_key_file option reaches the signer only with scheme :header
  # (OAuth::Client::Helper#signature drops it for :body and :query_string), while a PEM given
  # as the consumer secret works with every scheme (OAuth::Signature::RSA::SHA1#digest).
  secret = method == 'RSA-SHA1' ? File.read(ENV.fetch('OAUTH_RSA_PRIVATE_KEY')) : ENV.fetch('OAUTH_CONSUMER_SECRET')
  consumer = OAuth::Consumer.new(ENV.fetch('OAUTH_CONSUMER_KEY'), secret, options)

  if ENV['OAUTH_TOKEN'].to_s.empty?
    # The extra arguments become the POST data of the temporary credential request.
    extra = scope.empty? ? [] : [{ 'scope' => scope }]
    request_token = consumer.get_request_token({ oauth_callback: 'oob' }, *extra)
    emit(step: 'temporary', token: request_token.token)

    verifier = $stdin.gets.to_s.strip
    access_token = request_token.get_access_token(oauth_verifier: verifier)
  else # token credentials issued before (migrated): no flow
    access_token = OAuth::AccessToken.new(consumer, ENV.fetch('OAUTH_TOKEN'), ENV.fetch('OAUTH_TOKEN_SECRET'))
  end
  emit(step: 'token', token: access_token.token)

  get = nil
  unless transmission == 'body' # §3.5.2: body transmission needs a form body; GET has none
    query = URI.encode_www_form(params['query'])
    get = result(access_token.get(query.empty? ? '/api/me' : "/api/me?#{query}"))
  end
  form = URI.encode_www_form(params['form'])
  post = result(access_token.post('/api/me', form, 'Content-Type' => 'application/x-www-form-urlencoded'))
  emit(step: 'me', get: get, post: post)
rescue Exception => e # rubocop:disable Lint/RescueException -- UnknownSignatureMethod is not a StandardError
  detail = e.respond_to?(:request) && e.request.respond_to?(:body) ? " #{e.request.body}" : ''
  emit(step: 'error', message: "#{e.class}: #{e.message}#{detail}")
  exit 1
end
