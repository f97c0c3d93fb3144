#!/usr/bin/perl
# Interop driver for Net::OAuth (with LWP for HTTP): runs the RFC 5849 three-step flow against
# a Latchkey-shaped server, then calls /api/me with the awkward parameters.
#
# Usage: perl perl-net-oauth.pl BASE_URL; environment as in test/interop/README.md.
# Net::OAuth signs with HMAC-SHA1, HMAC-SHA256, PLAINTEXT and RSA-SHA1 (Crypt::OpenSSL::RSA).
#
# Net::OAuth keeps the parameters it signs in a hash (Net::OAuth::Message::
# gather_message_parameters), so a repeated name is signed with one value only, and it sorts
# "name=value" strings rather than names then values, which misorders a name that is a prefix
# of another ("prefix" and "prefix.more": "." sorts before "="). Both break the signature
# (RFC 5849 §3.4.1.3.2); the harness leaves those cases out (drivers.ts "limits").
# Its to_url/to_post_body also sort and de-duplicate what they send, so this driver builds
# the query and body itself: the caller's pairs in order, then the signed oauth_* ones.
use strict;
use warnings;
use Encode qw(decode_utf8 encode_utf8);
use HTTP::Request;
use JSON::PP;
use LWP::UserAgent;
use Net::OAuth;
use URI;

$Net::OAuth::PROTOCOL_VERSION = Net::OAuth::PROTOCOL_VERSION_1_0A;
binmode STDOUT, ':encoding(UTF-8)';
$| = 1;

my $json = JSON::PP->new->canonical;
sub emit { print $json->encode($_[0]), "\n" }

my $base = shift @ARGV or die "usage: $0 BASE_URL\n";
$base =~ s{/$}{};
my $method = $ENV{OAUTH_SIGNATURE_METHOD} || 'HMAC-SHA1';
my $transmission = $ENV{OAUTH_TRANSMISSION} || 'header';
my $params = JSON::PP->new->utf8->decode($ENV{INTEROP_PARAMS} || '{"query":[],"form":[]}');
my $scope = $ENV{INTEROP_SCOPE};
my $ua = LWP::UserAgent->new(timeout => 30);

my $rsa;
if ($method eq 'RSA-SHA1') {
    require Crypt::OpenSSL::RSA;
    open my $fh, '<', $ENV{OAUTH_RSA_PRIVATE_KEY} or die "cannot read the RSA key: $!\n";
    local $/;
    $rsa = Crypt::OpenSSL::RSA->new_private_key(<$fh>);
    $rsa->use_sha1_hash;
}

sub nonce { join '', map { ('a' .. 'z', 0 .. 9)[rand 36] } 1 .. 24 }

# Pairs to "a=b&c=d" the ordinary Perl way (URI, "+" for a space, UTF-8).
sub form_encode {
    my $uri = URI->new('', 'http');
    $uri->query_form(map { encode_utf8($_) } map {@$_} @_);
    return $uri->query // '';
}

# Signs and sends one request; $pairs go to the query (GET) or form body (POST).
sub send_signed {
    my (%a) = @_;
    my @pairs = @{ $a{pairs} || [] };
    my $url = "$base$a{path}";
    my $request = Net::OAuth->request($a{type})->new(
        consumer_key     => $ENV{OAUTH_CONSUMER_KEY},
        consumer_secret  => decode_utf8($ENV{OAUTH_CONSUMER_SECRET} // ''),
        request_url      => $url,
        request_method   => $a{http_method},
        signature_method => $method,
        timestamp        => time,
        nonce            => nonce(),
        ($rsa ? (signature_key => $rsa) : ()),
        %{ $a{oauth} || {} },
        extra_params => { map { $_->[0] => $_->[1] } @pairs },
    );
    $request->sign;

    my @protocol = grep { /^oauth_/ } sort keys %{ $request->to_hash };
    my $hash = $request->to_hash;
    my $signed = join '&', map { Net::OAuth::Message::encode($_) . '=' . Net::OAuth::Message::encode($hash->{$_}) } @protocol;
    my $encoded = form_encode(@pairs);
    my ($query, $body) = ('', '');
    if ($a{http_method} eq 'GET') { $query = $encoded } else { $body = $encoded }
    if ($transmission eq 'query') { $query = join '&', grep { $_ ne '' } $query, $signed }
    if ($transmission eq 'body')  { $body  = join '&', grep { $_ ne '' } $body,  $signed }

    my $http = HTTP::Request->new($a{http_method} => $query eq '' ? $url : "$url?$query");
    $http->header(Authorization => $request->to_authorization_header) if $transmission eq 'header';
    if ($a{http_method} ne 'GET') {
        $http->header('Content-Type' => 'application/x-www-form-urlencoded');
        $http->content($body);
    }
    return $ua->request($http);
}

sub form_fields {
    my ($response, $what) = @_;
    die "$what failed: " . $response->status_line . ' ' . $response->decoded_content . "\n"
      unless $response->is_success;
    my %fields = URI->new('?' . $response->decoded_content)->query_form;
    return \%fields;
}

sub me_result {
    my ($response) = @_;
    my $content = $response->content // '';    # UTF-8 octets (JSON, RFC 8259 §8.1)
    my $body = eval { JSON::PP->new->utf8->decode($content) } // $response->decoded_content;
    return { status => $response->code + 0, body => $body };
}

eval {
    my $token;
    if ($ENV{OAUTH_TOKEN}) {    # token credentials issued before (migrated): no flow
        $token = { oauth_token => decode_utf8($ENV{OAUTH_TOKEN}), oauth_token_secret => decode_utf8($ENV{OAUTH_TOKEN_SECRET}) };
    } else {
    my $temporary = form_fields(
        send_signed(
            type => 'request token', http_method => 'POST', path => '/oauth/request_token',
            oauth => { callback => 'oob' },
            pairs => $scope ? [ [ scope => $scope ] ] : [],
        ),
        'temporary credential request',
    );
    emit({ step => 'temporary', token => $temporary->{oauth_token} });

    my $verifier = <STDIN> // '';
    chomp $verifier;
    $token = form_fields(
        send_signed(
            type => 'access token', http_method => 'POST', path => '/oauth/access_token',
            oauth => {
                token        => $temporary->{oauth_token},
                token_secret => $temporary->{oauth_token_secret},
                verifier     => $verifier,
            },
        ),
        'token request',
    );
    }
    emit({ step => 'token', token => $token->{oauth_token} });

    my %credentials = (token => $token->{oauth_token}, token_secret => $token->{oauth_token_secret});
    my $get;
    # §3.5.2: body transmission needs a form body, and a GET has none.
    $get = me_result(send_signed(
        type => 'protected resource', http_method => 'GET', path => '/api/me',
        oauth => \%credentials, pairs => $params->{query},
    )) unless $transmission eq 'body';
    my $post = me_result(send_signed(
        type => 'protected resource', http_method => 'POST', path => '/api/me',
        oauth => \%credentials, pairs => $params->{form},
    ));
    emit({ step => 'me', get => $get, post => $post });
    1;
} or do {
    my $error = $@ || 'unknown error';
    chomp $error;
    emit({ step => 'error', message => $error });
    exit 1;
};
