#!/usr/bin/perl
# Workbooks written by Perl's Excel::Writer::XLSX (Debian's libexcel-writer-xlsx-perl) for the
# made-here corpus: OUT/excel-writer-xlsx/*.xlsx.
#   perl scripts/corpus/made-here/excel-writer-xlsx_made.pl CONTENT.json OUT
# The contents of content.py (as JSON). Like XlsxWriter it computes no formula (a formula without
# a value is saved with 0); its optimised mode writes strings inline.
use strict;
use warnings;
use utf8;
use Excel::Writer::XLSX;
use JSON::PP;
use File::Path qw(make_path);

my ($content_file, $out_root) = @ARGV;
open my $fh, '<:raw', $content_file or die "$content_file: $!";
my $C = JSON::PP->new->utf8->decode(do { local $/; <$fh> });
my $out = "$out_root/excel-writer-xlsx";
make_path($out);

sub book { my ($name) = @_; my $wb = Excel::Writer::XLSX->new("$out/$name"); die "$name: $!" unless $wb; return $wb; }

sub strings {
    my ($name, $optimised) = @_;
    my $wb = book($name);
    $wb->set_optimization() if $optimised;
    my $ws = $wb->add_worksheet('Strings');
    my $i = 0;
    $ws->write_string($i++, 0, $_) for @{ $C->{strings} };
    $wb->close();
}

sub numbers {
    my $wb = book('numbers.xlsx');
    my $ws = $wb->add_worksheet('Numbers');
    $ws->write_row(0, 0, ['value', 'format']);
    my $i = 1;
    for my $n (@{ $C->{numbers} }) {
        my ($v, $fmt) = @$n;
        $ws->write_number($i, 0, $v + 0, $wb->add_format(num_format => $fmt));
        $ws->write_string($i++, 1, $fmt);
    }
    $ws->write_number($i, 0, 0.1 + 0.2);
    $wb->close();
}

sub dates {
    my ($epoch1904) = @_;
    my $wb = book($epoch1904 ? 'dates-1904.xlsx' : 'dates.xlsx');
    $wb->set_1904() if $epoch1904;
    my $ws = $wb->add_worksheet('Dates');
    my $i = 0;
    for my $d (@{ $C->{dates} }) {
        my ($v, $fmt) = @$d;
        $v .= 'T' unless $v =~ /T/;    # write_date_time's ISO form: yyyy-mm-ddT[hh:mm:ss]
        $ws->write_date_time($i, 0, $v, $wb->add_format(num_format => $fmt));
        $ws->write_string($i++, 1, $fmt);
    }
    $wb->close();
}

sub types {
    my $wb = book('types.xlsx');
    my $ws = $wb->add_worksheet('Types');
    $ws->write_string(0, 0, 'bool');
    $ws->write_boolean(0, 1, 1);
    $ws->write_boolean(0, 2, 0);
    $ws->write_string(1, 0, 'error');
    $ws->write_formula(1, 1, '=NA()', undef, '#N/A');
    $ws->write_formula(1, 2, '=1/0', undef, '#DIV/0!');
    $ws->write_string(2, 0, 'formula');
    $ws->write_formula(2, 1, '=1+2', undef, 3);
    $ws->write_formula(2, 2, '="a"&"b"', undef, 'ab');
    $ws->write_formula(2, 3, '=SUM(B5:B6)');    # no value given: saved as 0
    $ws->write_string(3, 0, 'blank below');
    $ws->write_number(4, 1, 10.25);
    $ws->write_number(5, 1, 20.5);
    $wb->close();
}

sub layout {
    my $wb = book('layout.xlsx');
    my $ws = $wb->add_worksheet('Layout');
    $ws->write_string(0, 0, $C->{title});
    $ws->merge_range('A2:D2', 'merged note', $wb->add_format());
    my $i = 0;
    for my $row (@{ $C->{layoutRows} }) {
        my $j = 0;
        for my $v (@$row) {
            $ws->write(2 + $i + ($i > 2 ? 1 : 0), $j + ($j > 1 ? 1 : 0), $v) if defined $v;
            $j++;
        }
        $i++;
    }
    $ws->merge_range('F4:F6', 'merged over three rows', $wb->add_format());
    $ws->set_row(4, undef, undef, 1);
    $ws->autofilter('A3:F9');
    my $h = $wb->add_worksheet('Hidden');
    $h->write_string(0, 0, 'hidden sheet');
    $h->hide();
    $wb->close();
}

sub many {
    my $wb = book('many-sheets.xlsx');
    for my $n (1 .. $C->{many}) {
        my $ws = $wb->add_worksheet(sprintf('S%02d', $n));
        $ws->write_string(0, 0, "sheet $n");
        $ws->write_number(1, 1, $n);
    }
    $wb->close();
}

sub richtext {
    my $wb = book('richtext.xlsx');
    my $ws = $wb->add_worksheet('Rich');
    my $bold = $wb->add_format(bold => 1);
    my $red = $wb->add_format(color => 'red', italic => 1);
    $ws->write_rich_string(0, 0, 'Refund ', $bold, 'approved', ' for ', $red, 'order 01234');
    $ws->write_rich_string(1, 0, $bold, "中文", $red, " \x{1F4B3} ", 'end ');
    $ws->write_string(2, 0, 'plain after rich');
    $wb->close();
}

sub refunds {
    my $wb = book('refunds.xlsx');
    my $ws = $wb->add_worksheet('Refunds');
    my $pad = $wb->add_format(num_format => '00000');
    my $money = $wb->add_format(num_format => '#,##0.00');
    $ws->write_row(0, 0, $C->{refundHeader});
    my $i = 1;
    for my $r (@{ $C->{refunds} }) {
        $ws->write_string($i, 0, $r->[0]);
        $ws->write_number($i, 1, $r->[1], $pad);
        $ws->write_string($i, 2, $r->[2]);
        $ws->write_number($i, 3, $r->[3], $money);
        $ws->write_number($i, 4, $r->[4], $money);
        $ws->write_string($i++, 5, $r->[5]);
    }
    $wb->close();
}

strings('strings.xlsx', 0);
strings('strings-inline.xlsx', 1);
numbers();
dates(0);
dates(1);
types();
layout();
many();
richtext();
refunds();
